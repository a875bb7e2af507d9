# Copied by acp-codegen from templates/python/runtime/transports/pipes.py. Do not edit here:
# edit the source, then run `make generate`.

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

from ..event_loop import loop_name
from .file_pumps import needs_pump, reading_pipe, writing_pipe
from .transport import CoalescingWriter

_CHUNK = 256 * 1024
"""The most one `read()` returns; bytes kept unread past twice this size stop the pipe."""

Sink = Callable[[bytes], None]
"""Takes every chunk as it is read; `b""` once, at the end of the stream."""


class PipeReader(asyncio.Protocol):
    """The read end of a pipe: read through an asyncio `StreamReader` (pull), or pushed to a sink.

    Pull is the standard library's `StreamReader`, with its buffering and flow control (over two
    processes on asyncio's loop it measured 10 % faster single round trips than a plain deque of
    chunks, for reasons we could not pin down). Push holds chunks while the connection asks it
    to (flow control) and stops the pipe only once they pass twice the limit, as `StreamReader`
    does: holding is not stopping at once.
    """

    def __init__(self, limit: int = _CHUNK) -> None:
        self._limit = limit
        self._stream = asyncio.StreamReader(limit=limit)
        self._fed = False  # the stream got bytes: pull from then on
        self._sink: Sink | None = None
        self._held = False
        self._kept: deque[bytes] = deque()
        self._kept_size = 0
        self._ended = False
        self._transport: asyncio.ReadTransport | None = None
        self._pipe_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's pipe transports are not `asyncio.ReadTransport` subclasses, but behave as one.
        self._transport = cast(asyncio.ReadTransport, transport)
        self._stream.set_transport(transport)

    def data_received(self, data: bytes) -> None:
        sink = self._sink
        if sink is None:
            self._fed = True
            self._stream.feed_data(data)
        elif not self._held:
            sink(data)
        else:
            self._kept.append(data)
            self._kept_size += len(data)
            if self._kept_size > 2 * self._limit and not self._pipe_paused:
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
        if self._sink is None:
            self._stream.feed_eof()
        elif not self._held:
            self._sink(b"")

    async def read(self) -> bytes:
        """The bytes read so far (up to the limit), waiting for some; `b""` at the end."""
        return await self._stream.read(self._limit)

    def deliver_to(self, sink: Sink) -> bool:
        """From now on, hand every chunk to `sink` as it is read; False (and nothing changes)
        when bytes were already read for `read()`."""
        if self._sink is not None:
            raise RuntimeError("the pipe already delivers to a sink")
        if self._fed:
            return False
        self._sink = sink
        if self._ended:
            sink(b"")
        return True

    def hold(self) -> None:
        """Push mode, flow control: keep what is read until `release()`."""
        self._held = True

    def release(self) -> None:
        """Deliver what was kept, then every chunk again as it is read."""
        sink = self._sink
        assert sink is not None
        self._held = False
        if self._kept:
            data = b"".join(self._kept)
            self._kept.clear()
            self._kept_size = 0
            if self._pipe_paused:
                self._pipe_paused = False
                transport = self._transport
                if transport is not None and not transport.is_closing():
                    transport.resume_reading()
            sink(data)
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
        return push and self._pipe.deliver_to(sink)

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
    read_file: Any, write_file: Any, *, keep_reading: Callable[[], bool] = lambda: False
) -> tuple[PipeReader, asyncio.StreamWriter, asyncio.ReadTransport]:
    """The two ends over two pipe files (anything with `fileno()`), and the read pipe's transport
    (closing it ends the reader: `process.py` does so when a child exits). `keep_reading` is
    asked when the write pipe closes: True keeps the read side open (a half-close of our own)."""
    loop = asyncio.get_running_loop()
    read_transport, reader = await loop.connect_read_pipe(PipeReader, read_file)
    write_transport, write_protocol = await loop.connect_write_pipe(_WritePipeProtocol, write_file)
    # A peer that stops reading (our stdout closed: EPIPE) is gone: end the reading side too, so
    # the connection closes at once instead of running on, unheard.
    write_protocol.closed.add_done_callback(
        lambda _: None if keep_reading() else read_transport.close()
    )
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    return reader, writer, read_transport


async def open_fds(read_fd: int, write_fd: int, *, push: bool | None = None) -> PipeTransport:
    """A transport over two pipe (or socket, or terminal) descriptors, e.g. from `os.pipe()`
    (`push`: see `PipeTransport`); a regular file or `/dev/null` on either side is put behind a
    pipe (`file_pumps`)."""
    if needs_pump(read_fd):
        read_fd = reading_pipe(read_fd)
    if needs_pump(write_fd):
        write_fd = writing_pipe(write_fd)
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
