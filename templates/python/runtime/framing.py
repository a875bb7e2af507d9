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
