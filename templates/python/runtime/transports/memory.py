"""In-memory transports: two connected ends in one process, for tests and embedding.

Layer: transport.
"""

from __future__ import annotations

import asyncio

from ..errors import ConnectionClosed


class MemoryTransport:
    """One end of an in-memory pair: what one end writes, the other reads."""

    def __init__(self) -> None:
        self._inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._peer: MemoryTransport | None = None
        self._closed = False

    async def read(self) -> bytes:
        if self._closed and self._inbox.empty():
            return b""
        return await self._inbox.get()

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._closed or self._peer is None or self._peer._closed:
            raise ConnectionClosed("the in-memory transport is closed")
        self._peer._inbox.put_nowait(data)

    def writing_paused(self) -> bool:
        return False  # an unbounded in-memory queue

    async def drain(self) -> None:
        return None

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._inbox.put_nowait(b"")
        if self._peer is not None and not self._peer._closed:
            self._peer._inbox.put_nowait(b"")


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected in-memory transports."""
    left, right = MemoryTransport(), MemoryTransport()
    left._peer, right._peer = right, left
    return left, right
