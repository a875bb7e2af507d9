"""Pipes as transports: this process's stdio, a pair of descriptors, a child's stdin/stdout.

Layer: transport.

`PipeTransport` is the transport editors and agents really run on. Its read side is a plain
asyncio protocol (`PipeReader`) that keeps what it reads for `read()`, or hands each chunk to the
connection in the event-loop callback that read it (`deliver_to`): the connection then splits and
routes the frames right there, one event-loop turn earlier than a reading task would.

Which of the two is faster depends on the loop, so `push=None` (the default) pushes on uvloop
only. Measured over two processes (docs/benchmarks.md, "What moved the numbers"): on uvloop,
pushing makes single round trips 8 % faster and leaves the rest as it was; on asyncio's selector
loop it leaves single round trips as they were and makes 64 requests in flight 14 % slower.
Writes are `CoalescingWriter`'s.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, cast

from .event_loop import loop_name
from .transport import CoalescingWriter

_CHUNK = 256 * 1024
"""Chunks kept unread above twice this size stop reading from the pipe."""

Sink = Callable[[bytes], None]
"""Takes every chunk as it is read; `b""` once, at the end of the stream."""


class PipeReader(asyncio.Protocol):
    """The read end of a pipe: chunks kept for `read()` (pull), or pushed to a sink.

    Kept chunks (pull mode, or push mode while held) stop the pipe once they pass twice the limit,
    as asyncio's `StreamReader` does: holding is not stopping at once. (Two peers that each
    stopped reading as soon as their own output backed up would wait for each other forever.)
    """

    def __init__(self, limit: int = _CHUNK) -> None:
        self._limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._ended = False
        self._waiter: asyncio.Future[None] | None = None
        self._sink: Sink | None = None
        self._held = False  # push mode, flow control: keep chunks instead of delivering them
        self._transport: asyncio.ReadTransport | None = None
        self._pipe_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's pipe transports are not `asyncio.ReadTransport` subclasses, but behave as one.
        self._transport = cast(asyncio.ReadTransport, transport)

    def data_received(self, data: bytes) -> None:
        sink = self._sink
        if sink is not None and not self._held:
            sink(data)
            return
        self._chunks.append(data)
        self._size += len(data)
        self._wake()
        if self._size > 2 * self._limit and not self._pipe_paused:
            transport = self._transport
            if transport is not None and not transport.is_closing():
                self._pipe_paused = True
                transport.pause_reading()

    def eof_received(self) -> bool:
        self._end()
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        # A read error ends the stream like EOF does: the connection closes either way.
        self._end()

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        if self._sink is not None and not self._held:
            self._sink(b"")
        else:
            self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _take(self) -> bytes:
        """Every kept chunk, joined; the pipe reads on."""
        chunks = self._chunks
        data = chunks.popleft() if len(chunks) == 1 else b"".join(chunks)
        chunks.clear()
        self._size = 0
        if self._pipe_paused:
            self._pipe_paused = False
            transport = self._transport
            if transport is not None and not transport.is_closing():
                transport.resume_reading()
        return data

    async def read(self) -> bytes:
        """Everything read so far (joined), waiting for some; `b""` at the end of the stream."""
        while not self._chunks:
            if self._ended:
                return b""
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._take()

    def deliver_to(self, sink: Sink) -> None:
        """From now on, hand every chunk to `sink` as it is read (what was kept first)."""
        if self._sink is not None:
            raise RuntimeError("the pipe already delivers to a sink")
        self._sink = sink
        self._deliver_kept()

    def hold(self) -> None:
        """Push mode, flow control: keep what is read until `release()`."""
        self._held = True

    def release(self) -> None:
        """Deliver what was kept, then every chunk again as it is read."""
        self._held = False
        self._deliver_kept()

    def _deliver_kept(self) -> None:
        sink = self._sink
        assert sink is not None
        if self._chunks:
            sink(self._take())
        if self._ended and not self._held:
            sink(b"")


class PipeTransport(CoalescingWriter):
    """A transport over two pipes (or sockets, or a terminal) whose read side can push chunks to
    the connection as they arrive (`deliver_to`, a `PushTransport`), see the module.

    `push`: True to always push when asked, False never, None on uvloop only.
    """

    def __init__(
        self,
        pipes: tuple[PipeReader, asyncio.StreamWriter, asyncio.ReadTransport],
        on_close: Callable[[], Awaitable[None]] | None = None,
        *,
        push: bool | None = None,
    ) -> None:
        reader, writer, _ = pipes
        super().__init__(writer, on_close)
        self._pipe = reader
        self._push = push

    async def read(self) -> bytes:
        return await self._pipe.read()

    def deliver_to(self, sink: Sink) -> bool:
        """Hand every chunk to `sink` in the callback that read it (`b""` at the end), if this
        transport pushes on this loop; False: read it with `read()` instead."""
        push = self._push if self._push is not None else loop_name() == "uvloop"
        if push:
            self._pipe.deliver_to(sink)
        return push

    def pause_reading(self) -> None:
        self._pipe.hold()

    def resume_reading(self) -> None:
        self._pipe.release()


class _WritePipeProtocol(asyncio.streams.FlowControlMixin):
    """Flow control for a write pipe, plus the close waiter `StreamWriter.wait_closed` needs."""

    def __init__(self) -> None:
        super().__init__()
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self._closed.done():
            self._closed.set_result(None)

    @property
    def closed(self) -> asyncio.Future[None]:
        """Done when the pipe is gone (the peer closed its end, or we closed ours)."""
        return self._closed

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        return self._closed


async def connect_pipes(
    read_file: Any, write_file: Any
) -> tuple[PipeReader, asyncio.StreamWriter, asyncio.ReadTransport]:
    """The two ends over two pipe files (anything with `fileno()`), and the read pipe's transport
    (closing it ends the reader: `process.py` does so when a child exits)."""
    loop = asyncio.get_running_loop()
    read_transport, reader = await loop.connect_read_pipe(PipeReader, read_file)
    write_transport, write_protocol = await loop.connect_write_pipe(_WritePipeProtocol, write_file)
    # A peer that stops reading (our stdout closed: EPIPE) is gone: end the reading side too, so
    # the connection closes at once instead of running on, unheard.
    write_protocol.closed.add_done_callback(lambda _: read_transport.close())
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    return reader, writer, read_transport


async def open_fds(read_fd: int, write_fd: int, *, push: bool | None = None) -> PipeTransport:
    """A transport over two pipe (or socket, or terminal) descriptors, e.g. from `os.pipe()`
    (`push`: see `PipeTransport`)."""
    pipes = await connect_pipes(
        os.fdopen(read_fd, "rb", buffering=0), os.fdopen(write_fd, "wb", buffering=0)
    )
    return PipeTransport(pipes, push=push)


async def open_stdio(*, push: bool | None = None) -> PipeTransport:
    """This process's stdin and stdout (duplicated, so `sys.stdout` can still be closed safely).

    Anything else printed to stdout would corrupt the stream: log to stderr.
    """
    sys.stdout.flush()
    return await open_fds(os.dup(sys.stdin.fileno()), os.dup(sys.stdout.fileno()), push=push)
