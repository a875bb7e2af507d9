"""Byte transports for newline-delimited JSON, and the line splitter with its frame size limit.

Layer: transport.

A transport moves bytes; it knows nothing of JSON-RPC. Constructors:

- `open_stdio()` (in `pipes`): this process's stdin/stdout (an agent started by a client);
- `spawn_process(program, *args)` (in `process`): a child process's stdin/stdout and the end of its
  process group (a client starting an agent);
- `open_fds(read_fd, write_fd)` (in `pipes`): any pair of pipe descriptors (`os.pipe()`);
- `StreamTransport(reader, writer)`: asyncio streams (a socket);
- `memory_pair()` (in `memory`): two connected in-memory ends, for tests;
- `http` and `remote`: ACP's Streamable HTTP and WebSocket transport, server and client.

Every transport can be read with `read()`; a `PushTransport` (the pipes) can also hand each chunk
to the connection in the callback that read it, an event-loop turn earlier (see `pipes`); a
`MessageTransport` (WebSocket) hands over and takes whole messages, never split from or joined
into lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..errors import ConnectionClosed

log = logging.getLogger(__name__)

DEFAULT_FRAME_LIMIT = 50 * 1024 * 1024
"""Longest accepted line, in bytes (50 MiB). A longer frame is dropped (a request among them is
answered -32600 when its id can be read); the connection stays up."""

_CHUNK = 256 * 1024
_COALESCE_LIMIT = 64 * 1024
"""Frames collected in one event-loop turn are written together once they reach this size."""
STREAM = 1 << 30
"""`write(..., batch=STREAM)`: a stream of frames (notifications), any number to a write."""
_SPLIT = 4
"""An exchange's frames go out in at least this many writes a turn (`exchange_batch`)."""
_HIGH_WATER = 64 * 1024
"""asyncio's default write high-water mark: above it `drain()` waits."""


class Transport(Protocol):
    """What the dispatcher needs from a byte stream."""

    async def read(self) -> bytes:
        """The next chunk of bytes; `b""` at end of stream."""
        ...

    def write(self, data: bytes, *, batch: int = 0) -> None:
        """Queue `data` in one piece (frames never interleave); ConnectionClosed if it cannot.

        `batch`: how many frames may share a write with this one. 0: nothing is known to follow
        (written at once; while frames are held, with them, to keep the order). n > 0: the caller
        expects more frames this event-loop turn (a notification stream: `STREAM`; a pool of
        requests or their answers: `exchange_batch`); the transport may hold them briefly and
        write them together, in order, n at a time at most.
        """
        ...

    async def drain(self) -> None:
        """Wait until the write buffer is below its high-water mark."""
        ...

    def writing_paused(self) -> bool:
        """Whether the write buffer is over its high-water mark (the peer reads slower than we
        write): a cheap check before `drain`."""
        ...

    async def close(self) -> None:
        """Flush what can be flushed and release the stream; idempotent."""
        ...


@runtime_checkable
class PushTransport(Transport, Protocol):
    """A transport that can deliver what it reads as it reads it, instead of through `read()`."""

    def deliver_to(self, sink: Callable[[bytes], None]) -> bool:
        """From now on, call `sink` with every chunk read, in the event-loop callback that read it
        (what was read before first), and `b""` once at the end of the stream; or return False
        (it is faster read with `read()` here) and do nothing."""
        ...

    def pause_reading(self) -> None:
        """Stop delivering (flow control) until `resume_reading()`; what is read meanwhile is
        kept, and reading stops once that passes a bound."""
        ...

    def resume_reading(self) -> None: ...


MessageSink = Callable[[list[bytes]], None]
"""Takes the whole messages of each read, in order; `[]` once, at the end of the stream."""


@runtime_checkable
class MessageTransport(PushTransport, Protocol):
    """A push transport whose unit is the message, not the byte (WebSocket: "All messages are
    WebSocket text frames containing JSON-RPC"): no newline is added to a message to be split off
    again. Used by a connection with NDJSON framing (the default); any other reads and writes
    bytes."""

    def deliver_messages_to(self, sink: MessageSink) -> bool:
        """As `deliver_to`, but `sink` takes the messages of each read, each one JSON text on one
        line (a newline in it made a space, `ndjson_line`), `[]` at the end; False: read with
        `read()`."""
        ...

    def write_message(self, data: bytes) -> None:
        """Send `data` (one JSON text, no newline) as one message; ConnectionClosed if it
        cannot."""
        ...


@dataclass(frozen=True, slots=True)
class OversizedFrame:
    """A frame longer than the limit, dropped without ever being held whole: its first bytes
    (`head`, where a frame's `"id"` usually is) and how many bytes it had."""

    head: bytes
    size: int


_HEAD = 4096
LF = ord("\n")
"""The newline as the byte value for `in`: CPython's `b"\n" in data` first tries the needle as
an integer, raising and clearing a TypeError, about ten times the cost (0.3 µs)."""


class FrameReader:
    """Splits a transport's chunks into lines, in time linear in the bytes read.

    A partial line is kept as a list of chunks, joined once when its newline arrives, so a long
    frame costs its length, not its length squared. A line longer than `limit` bytes is never held
    whole: once its pending part passes the limit it is discarded up to its newline and reported as
    one `OversizedFrame` (its head kept for the dispatcher to answer it); the lines after it are
    read normally.
    """

    __slots__ = ("_discarding", "_head", "_limit", "_pieces", "_read", "_size")

    def __init__(self, read: Callable[[], Awaitable[bytes]], limit: int = DEFAULT_FRAME_LIMIT):
        self._read = read
        self._limit = limit
        self._pieces: list[bytes] = []
        self._size = 0  # bytes of the pending line (kept, or discarded so far)
        self._discarding = False
        self._head = b""

    @property
    def limit(self) -> int:
        """The longest line accepted, in bytes."""
        return self._limit

    async def next_lines(self) -> list[bytes | OversizedFrame] | None:
        """The complete lines that came with the next chunk (maybe none); None at end of stream."""
        return self.feed(await self._read())

    def feed(self, chunk: bytes) -> list[bytes | OversizedFrame] | None:
        """The complete lines that came with `chunk` (maybe none); None at the end (`b""`)."""
        if not chunk:
            if self._discarding:
                return [self._end_discard(0)]
            if self._pieces:
                line = b"".join(self._pieces)
                self._pieces, self._size = [], 0
                return self._checked([line])
            return None
        if (self._pieces or self._discarding) and LF not in chunk:
            self._keep(chunk)  # the middle of a long line: kept as it is, never copied
            return []
        parts: list[bytes] = chunk.split(b"\n")
        tail = parts.pop()
        out: list[bytes | OversizedFrame] = []
        if parts:
            first = parts[0]
            if self._discarding:
                out.append(self._end_discard(len(first)))
                del parts[0]
            elif self._pieces:
                self._pieces.append(first)
                parts[0] = b"".join(self._pieces)
                self._pieces, self._size = [], 0
            # Only a line longer than the chunk, or a joined first line, can be over the limit.
            if len(chunk) > self._limit or (parts and len(parts[0]) > self._limit):
                out += self._checked(parts)
            else:
                out += parts
        self._keep(tail)
        return out

    def _keep(self, tail: bytes) -> None:
        """The start of a line whose newline has not come yet."""
        if not tail:
            return
        self._size += len(tail)
        if self._discarding:
            return
        self._pieces.append(tail)
        if self._size > self._limit:
            self._head = b"".join(self._pieces)[:_HEAD]
            self._pieces = []
            self._discarding = True

    def _end_discard(self, last: int) -> OversizedFrame:
        frame = OversizedFrame(self._head, self._size + last)
        self._discarding, self._head, self._size = False, b"", 0
        log.error("dropped a frame of %d bytes (frame size limit %d)", frame.size, self._limit)
        return frame

    def checked(self, lines: list[bytes]) -> list[bytes | OversizedFrame]:
        """Whole `lines` (messages), each over the limit dropped as an `OversizedFrame`."""
        return self._checked(lines)

    def _checked(self, lines: list[bytes]) -> list[bytes | OversizedFrame]:
        limit = self._limit
        out: list[bytes | OversizedFrame] = []
        for line in lines:
            if len(line) > limit:
                log.error("dropped a frame of %d bytes (frame size limit %d)", len(line), limit)
                out.append(OversizedFrame(line[:_HEAD], len(line)))
            else:
                out.append(line)
        return out


def exchange_batch(in_flight: int) -> int:
    """The `batch` for a request written while `in_flight` others are pending, or an answer
    written while the peer has `in_flight` other requests with us: a quarter of them, and at
    least 2. Held for one write, a whole window of requests travels as one block: the peer has
    nothing to do until it arrives, then we have nothing to do until its answers do, and the two
    processes take turns instead of working at once. In pieces, each side starts on the first
    while the other still writes the rest (measured over two processes, docs/benchmarks.md)."""
    return max(2, in_flight // _SPLIT) if in_flight else 0


class CoalescingWriter:
    """The write half of `StreamTransport` and `PipeTransport`: an asyncio `StreamWriter` with
    coalesced writes.

    A frame written with a `batch` (more are expected this turn) while the transport is idle goes
    to the stream at once and opens a batch: every frame written after it in the same event-loop
    turn is collected and written together at the start of the next turn, or as soon as they
    reach the latest frame's `batch` in number or `_COALESCE_LIMIT` bytes. A burst of
    `session/update`s thus costs one write call per batch, not one per frame; a pool of requests
    goes out in pieces its peer can start on; and a lone frame is never delayed. Frames written
    with no `batch` open none: they are written at once, or join an open batch to keep the order.
    Frames stay whole and in order; `close()` flushes first.
    """

    def __init__(
        self,
        writer: asyncio.StreamWriter,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ):
        self._writer = writer
        # Asked about on every frame: the transport's own methods, not the writer's wrappers.
        transport = writer.transport
        self._is_closing = transport.is_closing
        self._buffered = transport.get_write_buffer_size
        self._on_close = on_close
        self._closed = False
        self._batch: list[bytes] | None = None  # None: idle, nothing written this turn
        self._batch_size = 0

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._closed or self._is_closing():
            raise ConnectionClosed("the transport is closed")
        held = self._batch
        if held is None:
            self._writer.write(data)
            if batch:
                self._batch = []
                asyncio.get_running_loop().call_soon(self._flush)
            return
        held.append(data)
        self._batch_size += len(data)
        if self._batch_size >= _COALESCE_LIMIT or 0 < batch <= len(held):
            self._write_batch()

    def _write_batch(self) -> None:
        batch = self._batch
        if batch:
            self._batch = []
            self._batch_size = 0
            if not self._writer.is_closing():
                self._writer.write(b"".join(batch))

    def _flush(self) -> None:
        """Start of the next turn: write what was collected; the transport is idle again."""
        self._write_batch()
        self._batch = None

    def writing_paused(self) -> bool:
        return self._is_closing() or self._buffered() > _HIGH_WATER

    async def drain(self) -> None:
        try:
            await self._writer.drain()
        except (ConnectionError, OSError) as error:
            raise ConnectionClosed("the peer stopped reading") from error

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(ConnectionError, OSError):
            self._write_batch()
            if not self._writer.is_closing():
                await self._writer.drain()
            self._writer.close()
            await self._writer.wait_closed()
        if self._on_close is not None:
            await self._on_close()


class StreamTransport(CoalescingWriter):
    """A transport over an asyncio StreamReader/StreamWriter pair (a socket from
    `asyncio.open_connection`, say), with coalesced writes (`CoalescingWriter`)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ):
        super().__init__(writer, on_close)
        self._reader = reader

    async def read(self) -> bytes:
        try:
            return await self._reader.read(_CHUNK)
        except (ConnectionError, OSError):
            return b""
