"""Transports: how the bytes of a connection travel.

Layer: transport. A transport moves bytes and knows nothing of JSON-RPC:

- `transport`: the `Transport`, `PushTransport` and `MessageTransport` protocols, coalesced
  writes, asyncio streams, the line splitter with its frame size limit;
- `pipes`: this process's stdio (`open_stdio`) and any pair of pipe descriptors (`open_fds`);
- `process`: a child process (`spawn_process`), and the end of its process group;
- `memory`: two connected in-memory ends (`memory_pair`);
- `framing`: NDJSON lines, or the LSP base protocol's `Content-Length` headers.

ACP's remote transport (the RFD "Streamable HTTP & WebSocket") is not imported here: its server
is `transports.http_server` (an ASGI app, no dependency), its client `transports.remote` (the
`acp-protocol-sdk[http]` extra).
"""

from .framing import CONTENT_LENGTH, NDJSON, Framing
from .memory import MemoryTransport, memory_pair
from .pipes import PipeTransport, open_fds, open_stdio
from .process import ProcessTransport, spawn_process
from .transport import (
    DEFAULT_FRAME_LIMIT,
    MessageTransport,
    PushTransport,
    StreamTransport,
    Transport,
)

__all__ = [
    "CONTENT_LENGTH",
    "DEFAULT_FRAME_LIMIT",
    "NDJSON",
    "Framing",
    "MemoryTransport",
    "MessageTransport",
    "PipeTransport",
    "ProcessTransport",
    "PushTransport",
    "StreamTransport",
    "Transport",
    "memory_pair",
    "open_fds",
    "open_stdio",
    "spawn_process",
]
