# Copied by acp-codegen from templates/python/runtime/transports/queues.py. Do not edit here:
# edit the source, then run `make generate`.

"""The two queues between a message transport (HTTP, WebSocket) and a connection.

Layer: transport.

- `Inbox`: the peer's messages, as NDJSON lines, waiting for the connection's `read()`; bounded in
  bytes (`put` says no past the bound: the HTTP server answers 429, the WebSocket is closed).
- `Outbox`: our messages for one stream of the peer (the RFD's connection-scoped or a
  session-scoped SSE stream, or a WebSocket), kept until that stream's one receiver takes them,
  all that is queued at a time; counted in a shared `Backlog`, which is what the connection's
  flow control (`writing_paused`, `drain`) reads.
- `SendQueue`: a client transport's lines waiting for its one sender task (HTTP POSTs, WebSocket
  frames), counted in bytes for the connection's flow control.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable


class Inbox:
    """What the peer sent, for `read()`: the lines joined, up to `limit` bytes waiting."""

    __slots__ = ("_limit", "_lines", "_room", "_size", "_waiter", "ended", "taken")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lines: list[bytes] = []
        self._size = 0
        self.ended = False
        """`end()` was called (read only: an attribute, it is asked per message written)."""
        self._waiter: asyncio.Future[None] | None = None
        self._room: asyncio.Future[None] | None = None
        self.taken = False
        """`read()` has returned something."""

    @property
    def limit(self) -> int:
        return self._limit

    def take_all(self) -> bytes:
        """What waits, at once (`b""` when nothing does); for a reader that stops using `read()`."""
        data = b"".join(self._lines)
        self._lines = []
        self._size = 0
        self._make_room()
        return data

    def put(self, line: bytes) -> bool:
        """Queue one message (its line, newline included); False when it would pass the bound
        (nothing is queued) or the inbox has ended."""
        if self.ended or (self._size and self._size + len(line) > self._limit):
            return False
        self._lines.append(line)
        self._size += len(line)
        self._wake()
        return True

    def push(self, line: bytes) -> bool:
        """Queue one message whatever the bound (unless ended); False when the inbox is now
        over it: the caller stops reading until `room()`."""
        if self.ended:
            return True
        self._lines.append(line)
        self._size += len(line)
        self._wake()
        return self._size <= self._limit

    async def room(self) -> None:
        """Return once the inbox is within its bound (or ended)."""
        while self._size > self._limit and not self.ended:
            self._room = room = asyncio.get_running_loop().create_future()
            await room

    async def put_when_room(self, line: bytes) -> None:
        """Queue one message, first waiting while the inbox is full: the reader of a stream
        stops reading it, and TCP makes the sender wait."""
        while self._size and self._size + len(line) > self._limit and not self.ended:
            self._room = room = asyncio.get_running_loop().create_future()
            await room
        self.put(line)

    def end(self) -> None:
        """No more input: `read()` returns what is left, then `b""`."""
        self.ended = True
        self._wake()
        self._make_room()

    async def read(self) -> bytes:
        while not self._lines:
            if self.ended:
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        data = b"".join(self._lines) if len(self._lines) > 1 else self._lines[0]
        self._lines = []
        self._size = 0
        self.taken = True
        self._make_room()
        return data

    def _make_room(self) -> None:
        room = self._room
        if room is not None:
            self._room = None
            if not room.done():
                room.set_result(None)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)


class Backlog:
    """The bytes queued in a connection's outboxes, and a wake-up for those waiting for them to
    be taken (`drain`)."""

    __slots__ = ("_progress", "size")

    def __init__(self) -> None:
        self.size = 0
        self._progress: asyncio.Event | None = None

    def taken(self, size: int) -> None:
        self.size -= size
        if self._progress is not None:
            self._progress.set()
            self._progress = None

    async def progress(self, timeout: float) -> bool:
        """Wait until something is taken; False when `timeout` seconds pass first."""
        if self._progress is None:
            self._progress = asyncio.Event()
        try:
            await asyncio.wait_for(self._progress.wait(), timeout)
        except asyncio.TimeoutError:  # `TimeoutError` itself only from Python 3.11
            return False
        return True


class Outbox:
    """Our messages for one stream, until its receiver takes them (one receiver at a time)."""

    __slots__ = ("_backlog", "_finished", "_items", "_size", "_waiter", "has_receiver")

    def __init__(self, backlog: Backlog) -> None:
        self._backlog = backlog
        self._items: deque[bytes] = deque()
        self._size = 0
        self._finished = False
        self._waiter: asyncio.Future[None] | None = None
        self.has_receiver = False

    def __len__(self) -> int:
        return len(self._items)

    @property
    def finished(self) -> bool:
        return self._finished

    def put(self, message: bytes) -> None:
        if self._finished:
            return
        self._items.append(message)
        self._size += len(message)
        self._backlog.size += len(message)
        self._wake()

    def acquire(self) -> bool:
        """Become this stream's receiver; False when it has one (or is finished)."""
        if self.has_receiver or self._finished:
            return False
        self.has_receiver = True
        return True

    def release(self) -> None:
        """The receiver left (its client disconnected): what is queued waits for the next."""
        self.has_receiver = False
        self._wake()

    def finish(self) -> None:
        """The connection ended: the receiver gets what is queued, then the end."""
        self._finished = True
        self._wake()

    def discard(self) -> None:
        """Drop what is queued (nobody will take it)."""
        self._finished = True
        self._items.clear()
        self._backlog.taken(self._size)
        self._size = 0
        self._wake()

    async def take(self, keepalive: float | None = None) -> list[bytes] | None:
        """Everything queued (waiting for some); `[]` when `keepalive` seconds pass with
        nothing; None at the end (finished, or the receiver released)."""
        while not self._items:
            if self._finished or not self.has_receiver:
                return None
            loop = asyncio.get_running_loop()
            self._waiter = waiter = loop.create_future()
            timer = None if keepalive is None else loop.call_later(keepalive, self._wake)
            try:
                await waiter
            finally:
                if timer is not None:
                    timer.cancel()
            if not self._items and not self._finished and self.has_receiver:
                return []  # the keep-alive timer fired
        items = list(self._items)
        self._items.clear()
        size, self._size = self._size, 0
        self._backlog.taken(size)
        return items

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)


class SendQueue:
    """Our lines, in order, for a client transport's one sender task. `writing_paused()` holds
    while more than `high_water` bytes wait; the sender says `sent()` as it makes progress."""

    __slots__ = ("_high_water", "_lines", "_sent", "_size", "_wake")

    def __init__(self, high_water: int) -> None:
        self._high_water = high_water
        self._lines: deque[bytes] = deque()
        self._size = 0
        self._wake = asyncio.Event()
        self._sent = asyncio.Event()

    def __len__(self) -> int:
        return len(self._lines)

    def put(self, data: bytes) -> None:
        """Queue the lines of `data` (one message each; empty ones dropped)."""
        for line in data.split(b"\n"):
            if line:
                self._lines.append(line)
                self._size += len(line)
        self._wake.set()

    def full(self) -> bool:
        return self._size > self._high_water

    async def take(self, waiting: Callable[[], None] | None = None) -> bytes:
        """The next line, waiting for one (`waiting()` is called each time the queue is found
        empty)."""
        while not self._lines:
            if waiting is not None:
                waiting()
            self._wake.clear()
            await self._wake.wait()
        line = self._lines.popleft()
        self._size -= len(line)
        return line

    def sent(self) -> None:
        """Progress: wake `drain` and `flush`."""
        self._sent.set()

    async def drain(self, closed: Callable[[], bool]) -> None:
        """Return once at most `high_water` bytes wait, or `closed()`."""
        while not closed() and self.full():
            self._sent.clear()
            await self._sent.wait()

    async def flush(self, ended: Callable[[], bool]) -> None:
        """Return once every line is taken and sent, or `ended()`."""
        while self._lines and not ended():
            self._sent.clear()
            await self._sent.wait()
