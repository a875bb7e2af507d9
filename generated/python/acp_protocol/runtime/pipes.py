# Copied by acp-codegen from templates/python/runtime/pipes.py. Do not edit here:
# edit the source, then run `make generate`.

"""Moved to `transports.pipes`: this module keeps old imports working.

Layer: transport (a re-export; new code imports from `acp_protocol.runtime` or `.transports`).
"""

from .transports.pipes import PipeReader, PipeTransport, Sink, connect_pipes, open_fds, open_stdio

__all__ = ["PipeReader", "PipeTransport", "Sink", "connect_pipes", "open_fds", "open_stdio"]
