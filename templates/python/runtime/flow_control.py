"""Flow control of reading a connection: frames from the transport to the connection, paused
while the work already read is at its bound.

Layer: dispatcher. A `Receiver` splits what the transport reads into frames (the framing's
reader) and hands each to its `FrameSink` (the connection) as it is read: in the transport's own
callback when it pushes (`PushTransport`: pipes and WebSocket on uvloop), else in a receive loop
task (pull). Both route at most `ROUTE_SLICE` frames per event-loop turn (push: the rest of a
read waits in the receiver, and the transport is paused once `max_queued` frames wait). After
each slice it checks the sink's backlog: at `max_queued` requests in flight or notifications
queued it stops reading (pull: the loop waits; push: the transport holds what it reads) until
the backlog is down to half. Reading never waits on our own writing as such: a peer that does
not read our answers is bounded through the backlog (answers waiting in flight in
`IncomingRequests`, answers not read yet in `Connection.write_answer`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Sequence
from typing import Protocol

from .transports.framing import PayloadReader
from .transports.transport import (
    FrameReader,
    MessageTransport,
    OversizedFrame,
    PushTransport,
    Transport,
)

log = logging.getLogger(__name__)

ROUTE_SLICE = 16
"""Frames routed per event-loop turn (pull and push). The turn then runs, so the handlers
(and callers) woken so far write their answers and next requests while the rest of a large read
waits its turn: the peer starts on them at once. Routing a whole read first makes two busy peers
take turns, each idle while the other works through its batch (measured: our client and server
over WebSocket, 64 requests in flight, lock-step batches of 64 at half the rate; `make bench`
(k))."""


class FrameSink(Protocol):
    """What a receiver hands frames to (the connection)."""

    def receive_line(self, line: bytes) -> None:
        """One frame's bytes, as read."""
        ...

    def receive_oversized(self, frame: OversizedFrame) -> None:
        """A frame over the size limit, dropped unread but for its head."""
        ...

    def backlog(self) -> int:
        """Work read and not yet done: the larger of requests in flight and notifications
        queued."""
        ...

    async def stream_ended(self) -> None:
        """The peer's stream ended (or reading it failed)."""
        ...


class Receiver:
    """Reads one transport for one sink, pausing while the sink's backlog is at the bound."""

    def __init__(
        self, transport: Transport, frames: PayloadReader, sink: FrameSink, max_queued: int
    ) -> None:
        self._transport = transport
        self._frames = frames
        self._limit = frames.limit  # (asked per message read)
        self._sink = sink
        self._max_queued = max_queued
        # While reading waits for room: done once there is (`made_progress` checks it per message).
        self._room: asyncio.Future[None] | None = None
        self._reading = True  # False once the stream ended or `stop()` was called (push)
        self._task: asyncio.Task[None] | None = None  # pull: the loop; push: the end
        self._resume_task: asyncio.Task[None] | None = None  # push, paused by flow control
        # Push: the frames read but not routed yet (past this turn's slice), oldest first.
        self._queued: collections.deque[bytes | OversizedFrame] = collections.deque()
        # Push: frames routed since the last `_next_turn`. A turn is only scheduled when a slice is
        # full (a call per read would cost 1.7 µs), so frames of earlier turns count too: at
        # worst one frame in 16 waits one turn more, never more than 16 are routed in one.
        self._turn_routed = 0
        self._turn_ends = False  # push: `_next_turn` is scheduled
        self._paused = False  # push: we paused the transport (flow control, or a full queue)
        self._ended = False  # push: the end came while frames were queued

    @property
    def limit(self) -> int:
        """The frame size limit, in bytes."""
        return self._frames.limit

    def start(self) -> None:
        transport = self._transport
        if (
            isinstance(transport, MessageTransport)
            and isinstance(self._frames, FrameReader)  # NDJSON: a message is a line
            and transport.deliver_messages_to(self._on_messages)
        ):
            return
        if not (isinstance(transport, PushTransport) and transport.deliver_to(self._on_chunk)):
            self._task = asyncio.create_task(self._receive_loop(), name="jsonrpc-receive")

    async def stop(self) -> None:
        """Read no more, and end the reading tasks (not the one calling this)."""
        self._reading = False
        for task in (self._resume_task, self._task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    def made_progress(self) -> None:
        """Work completed: wake the paused reader once the backlog is down to half the bound."""
        room = self._room
        if room is not None and self._sink.backlog() <= self._max_queued // 2:
            self._room = None
            if not room.done():
                room.set_result(None)

    async def _receive_loop(self) -> None:
        """Pull: read, route, and pause while there is no room, until the stream ends."""
        frames = self._frames
        try:
            while (lines := await frames.next_lines()) is not None:
                start = 0
                while len(lines) - start > ROUTE_SLICE:
                    self._route(lines[start : start + ROUTE_SLICE])
                    start += ROUTE_SLICE
                    if self._sink.backlog() >= self._max_queued:
                        await self._wait_for_room()
                    await asyncio.sleep(0)  # the turn runs: the handlers woken so far write
                self._route(lines[start:] if start else lines)
                if self._sink.backlog() >= self._max_queued:
                    await self._wait_for_room()
        except asyncio.CancelledError:
            raise
        except Exception:  # a transport failure ends the connection like EOF
            log.exception("reading from the peer failed")
        await self._sink.stream_ended()

    def _on_chunk(self, chunk: bytes) -> None:
        """Push: the transport's callback with each chunk read (`b""` at the end)."""
        if not self._reading:
            return
        try:
            lines = self._frames.feed(chunk)
        except Exception:  # a failure here ends the connection like EOF, as in pull mode
            log.exception("reading from the peer failed")
            lines = None
        self._on_lines(lines)

    def _on_messages(self, messages: list[bytes]) -> None:
        """Push, whole messages (a `MessageTransport`): each one a line, none split off a chunk
        (`[]` at the end)."""
        if not self._reading:
            return
        if not messages:
            self._on_lines(None)
        elif len(messages) == 1 and len(messages[0]) <= self._limit:
            if not self._queued and self._turn_routed < ROUTE_SLICE:  # the common read
                self._sink.receive_line(messages[0])
                self._routed(1)
            else:
                self._on_lines(messages)
        else:
            assert isinstance(self._frames, FrameReader)
            self._on_lines(self._frames.checked(messages))

    def _on_lines(self, lines: Sequence[bytes | OversizedFrame] | None) -> None:
        """Push: route the frames of one read (a slice per turn); None: the stream ended."""
        if lines is None:
            if self._queued:
                self._ended = True  # after what waits
            else:
                self._end()
            return
        if self._queued:
            self._queued.extend(lines)  # behind what already waits
            self._hold_if_full()
            return
        room = ROUTE_SLICE - self._turn_routed
        if len(lines) > room:  # (`room` is never below 0)
            self._queued.extend(lines[room:])
            lines = lines[:room]
            self._hold_if_full()
        if lines:
            self._route(lines)
            self._routed(len(lines))
        if self._queued:  # after what this slice woke: their answers are written first
            self._schedule_turn()

    def _routed(self, count: int) -> None:
        """Push: `count` frames were routed; pause reading at the backlog's bound."""
        self._turn_routed += count
        if self._sink.backlog() >= self._max_queued and self._resume_task is None:
            self._pause()
            self._resume_task = asyncio.get_running_loop().create_task(self._resume())

    def _hold_if_full(self) -> None:
        """Push: stop the transport while `max_queued` frames wait to be routed."""
        if len(self._queued) >= self._max_queued:
            self._pause()

    def _pause(self) -> None:
        if not self._paused:
            self._paused = True
            assert isinstance(self._transport, PushTransport)
            self._transport.pause_reading()

    def _schedule_turn(self) -> None:
        if not self._turn_ends:
            self._turn_ends = True
            asyncio.get_running_loop().call_soon(self._next_turn)

    def _next_turn(self) -> None:
        """Push: a new event-loop turn: route the next slice of what waits (the handlers woken
        by the last one have run and written their answers, so the peer is already at work on
        them); once nothing waits, end the stream if it ended, or read again."""
        self._turn_ends = False
        self._turn_routed = 0
        if not self._reading or self._resume_task is not None:
            return  # flow control: `_resume` goes on once there is room
        queued = self._queued
        if queued:
            count = min(len(queued), ROUTE_SLICE)
            self._route([queued.popleft() for _ in range(count)])
            self._routed(count)
            if self._resume_task is not None:
                return  # `_resume` schedules the next turn once there is room
            if queued:
                self._schedule_turn()
                return
        if self._ended:
            self._end()
        elif self._paused:
            self._paused = False
            assert isinstance(self._transport, PushTransport)
            self._transport.resume_reading()  # may deliver what it kept, here

    def _end(self) -> None:
        """Push: the stream ended (or reading failed): the connection ends as after EOF."""
        self._reading = False
        self._task = asyncio.get_running_loop().create_task(self._sink.stream_ended())

    async def _resume(self) -> None:
        """Push: read on (or route what waits) once there is room again."""
        await self._wait_for_room()
        self._resume_task = None
        self._schedule_turn()

    def _route(self, lines: Sequence[bytes | OversizedFrame]) -> None:
        sink = self._sink
        for line in lines:
            if type(line) is bytes:
                sink.receive_line(line)
            else:
                sink.receive_oversized(line)  # type: ignore[arg-type]

    async def _wait_for_room(self) -> None:
        """Read on only when there is room: a peer that floods us, or stops reading our answers
        (they wait in flight, see `IncomingRequests`), cannot make our memory grow without bound."""
        if self._sink.backlog() >= self._max_queued:
            self._room = room = asyncio.get_running_loop().create_future()
            log.debug("reading paused: %d requests or notifications waiting", self._sink.backlog())
            await room
