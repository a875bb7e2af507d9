# Copied by acp-codegen from templates/python/runtime/framing.py. Do not edit here:
# edit the source, then run `make generate`.

"""Moved to `transports.framing`: this module keeps old imports working.

Layer: transport (a re-export; new code imports from `acp_protocol.runtime` or `.transports`).
"""

from .transports.framing import (
    CONTENT_LENGTH,
    NDJSON,
    ContentLengthReader,
    Framing,
    PayloadReader,
    Read,
)

__all__ = ["CONTENT_LENGTH", "NDJSON", "ContentLengthReader", "Framing", "PayloadReader", "Read"]
