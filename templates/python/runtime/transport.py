"""Moved to `transports.transport` and `transports.memory`: this module keeps old imports working.

Layer: transport (a re-export; new code imports from `acp_protocol.runtime` or `.transports`).
"""

from .transports.memory import MemoryTransport, memory_pair
from .transports.transport import (
    DEFAULT_FRAME_LIMIT,
    STREAM,
    CoalescingWriter,
    FrameReader,
    OversizedFrame,
    PushTransport,
    StreamTransport,
    Transport,
    exchange_batch,
)

__all__ = [
    "DEFAULT_FRAME_LIMIT",
    "STREAM",
    "CoalescingWriter",
    "FrameReader",
    "MemoryTransport",
    "OversizedFrame",
    "PushTransport",
    "StreamTransport",
    "Transport",
    "exchange_batch",
    "memory_pair",
]
