"""Transports: line splitting with the frame size limit, pipes, stdio of a real child process."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import textwrap
from typing import Any

import pytest
from acp_protocol.runtime import (
    Connection,
    InvalidResponse,
    RequestContext,
    open_fds,
    spawn_process,
)
from acp_protocol.runtime.transports.pipes import PipeTransport
from acp_protocol.runtime.transports.transport import (
    STREAM,
    FrameReader,
    OversizedFrame,
    exchange_batch,
)

from tests.runtime.support import connected, handlers


def chunks(*parts: bytes) -> Any:
    queue = list(parts)

    async def read() -> bytes:
        return queue.pop(0) if queue else b""

    return read


async def all_lines(reader: FrameReader) -> list[bytes | OversizedFrame]:
    lines: list[bytes | OversizedFrame] = []
    while (batch := await reader.next_lines()) is not None:
        lines.extend(batch)
    return lines


async def test_lines_split_across_chunks_are_joined() -> None:
    reader = FrameReader(chunks(b'{"a":', b"1}\n{", b'"b":2}\n', b'{"c":3}'))
    assert await all_lines(reader) == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


async def test_frame_over_the_limit_is_dropped_with_a_logged_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """ "A frame size limit … whose violation drops that frame with a logged error and keeps the
    connection alive." Oversized lines are dropped whole, in one chunk or spread over many."""
    big = b"x" * 40
    reader = FrameReader(
        chunks(b"ok1\n" + big + b"\nok2\n", big[:20], big[20:] + b"tail\nok3\n"), 32
    )
    with caplog.at_level(logging.ERROR, logger="acp_protocol.runtime"):
        lines = await all_lines(reader)
    assert [line for line in lines if isinstance(line, bytes)] == [b"ok1", b"ok2", b"ok3"]
    assert lines[1] == OversizedFrame(big, 40)  # reported in order, its head kept
    assert lines[3] == OversizedFrame(big[:20] + big[20:] + b"tail", 44)
    assert caplog.text.count("frame size limit") == 2


async def test_a_long_frame_in_many_chunks_is_joined_once() -> None:
    """The pending part of a line is a list of chunks joined when its newline comes: a 20 MB
    frame in 64 KiB chunks arrives whole (the time is linear; `make bench` measures it)."""
    frame = b'{"blob":"' + b"z" * (20 * 1024 * 1024) + b'"}'
    pieces = [frame[i : i + 65536] for i in range(0, len(frame), 65536)]
    reader = FrameReader(chunks(*pieces, b"\nnext\n"))
    assert await all_lines(reader) == [frame, b"next"]


async def test_an_oversized_request_is_answered_invalid_request_with_the_limit() -> None:
    """No sender waits forever: a request too large to read is answered -32600 when its id can
    be read from its start; the connection stays up."""

    async def echo(params: Any, ctx: RequestContext) -> Any:
        return params

    async with connected(handlers({"echo": echo}), frame_limit=1024) as (_, peer):
        peer.send({"jsonrpc": "2.0", "id": 7, "method": "echo", "params": {"blob": "y" * 5000}})
        answer = await peer.receive()
        assert answer["id"] == 7
        assert answer["error"]["code"] == -32600
        assert answer["error"]["data"]["limit"] == 1024
        peer.request(8, "ping")
        assert (await peer.receive())["id"] == 8


async def test_an_oversized_response_fails_our_waiting_caller() -> None:
    async with connected(frame_limit=1024) as (connection, peer):
        call = asyncio.create_task(connection.request("session/prompt", {}))
        await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {"blob": "y" * 5000}})
        with pytest.raises(InvalidResponse) as caught:
            await asyncio.wait_for(call, 5)
        assert caught.value.data["limit"] == 1024


async def test_oversized_request_does_not_stop_the_connection() -> None:
    async def echo(params: Any, ctx: RequestContext) -> Any:
        return params

    async with connected(handlers({"echo": echo}), frame_limit=1024) as (_, peer):
        peer.request(1, "echo", {"blob": "y" * 5000})
        peer.request(2, "echo", {"small": True})
        assert (await peer.receive())["error"]["code"] == -32600  # id 1, too large
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 2, "result": {"small": True}}


async def test_os_pipe_pair_carries_a_round_trip() -> None:
    async def add(params: Any, ctx: RequestContext) -> Any:
        return params[0] + params[1]

    a_read, b_write = os.pipe()
    b_read, a_write = os.pipe()
    left = Connection(await open_fds(a_read, a_write))
    right = Connection(await open_fds(b_read, b_write), handlers({"add": add}))
    async with left, right:
        assert await left.request("add", [2, 40]) == 42


async def read_everything(read_fd: int) -> bytes:
    with os.fdopen(read_fd, "rb") as source:
        return await asyncio.to_thread(source.read)


async def counted_pipe() -> tuple[PipeTransport, list[bytes], asyncio.Task[bytes]]:
    """A pipe transport whose every system-level write is recorded, and what its far end reads."""
    read_fd, write_fd = os.pipe()
    transport = await open_fds(os.open(os.devnull, os.O_RDONLY), write_fd)
    writes: list[bytes] = []
    write = transport._writer.write

    def counting_write(data: bytes | bytearray | memoryview) -> None:
        writes.append(bytes(data))
        write(data)

    transport._writer.write = counting_write  # type: ignore[method-assign]
    return transport, writes, asyncio.create_task(read_everything(read_fd))


async def test_notification_burst_is_written_in_few_writes_whole_and_in_order() -> None:
    """A burst of notifications in one event-loop turn is coalesced: the first goes out at once,
    the rest together; an answer written in the same turn keeps its place after them."""
    transport, writes, collected = await counted_pipe()
    for index in range(100):
        transport.write(b'{"n":%d}\n' % index, batch=STREAM)
    transport.write(b'{"answer":true}\n')
    assert len(writes) == 1, "only the first frame is written before the turn ends"
    await asyncio.sleep(0)
    assert len(writes) == 2, "the rest go out together at the start of the next turn"
    transport.write(b'{"later":true}\n')  # idle again: written at once
    assert len(writes) == 3
    await transport.close()
    expected = [b'{"n":%d}' % index for index in range(100)] + [
        b'{"answer":true}',
        b'{"later":true}',
    ]
    assert (await collected).splitlines() == expected


def test_an_exchange_goes_out_a_quarter_of_its_window_at_a_time() -> None:
    """Requests written while others are pending (or answers while the peer's requests are in
    flight) share writes a quarter of the window at a time, at least two."""
    assert exchange_batch(0) == 0  # nothing else in flight: nothing is expected to follow
    assert exchange_batch(1) == exchange_batch(11) == 2
    assert exchange_batch(12) == 3
    assert exchange_batch(64) == 16
    assert exchange_batch(256) == 64


async def test_a_pool_of_requests_is_written_in_pieces_its_peer_can_start_on() -> None:
    """Held for one write, a whole window travels as one block and the two processes take turns;
    with a `batch`, the frames of one turn go out at most `batch` at a time, whole and in order."""
    transport, writes, collected = await counted_pipe()
    for index in range(64):
        transport.write(b'{"id":%d}\n' % index, batch=exchange_batch(64))
    assert [piece.count(b"\n") for piece in writes] == [1, 16, 16, 16]
    await asyncio.sleep(0)
    assert [piece.count(b"\n") for piece in writes] == [1, 16, 16, 16, 15]
    await transport.close()
    assert (await collected).splitlines() == [b'{"id":%d}' % index for index in range(64)]


async def test_close_writes_frames_still_collected() -> None:
    read_fd, write_fd = os.pipe()
    transport = await open_fds(os.open(os.devnull, os.O_RDONLY), write_fd)
    collected = asyncio.create_task(read_everything(read_fd))
    transport.write(b"1\n", batch=STREAM)
    transport.write(b"2\n", batch=STREAM)
    await transport.close()
    assert await collected == b"1\n2\n"


CHILD = textwrap.dedent("""
    import asyncio
    from acp_protocol.runtime import Connection, MethodHandlers, open_stdio

    async def upper(params, ctx):
        await ctx.notify("progress", {"step": 1})
        return params["text"].upper()

    async def main():
        connection = Connection(await open_stdio(), MethodHandlers({"upper": upper}))
        async with connection:
            await connection.wait_closed()

    asyncio.run(main())
    """)


async def test_child_process_on_stdio_answers_and_exits_on_eof() -> None:
    """A spawned process running the runtime on its stdio: the usual client → agent setup."""
    seen: list[Any] = []

    async def progress(params: Any) -> None:
        seen.append(params)

    transport = await spawn_process(sys.executable, "-c", CHILD)
    async with Connection(transport, handlers(notifications={"progress": progress})) as agent:
        assert await asyncio.wait_for(agent.request("upper", {"text": "hi"}), 10) == "HI"
    assert seen == [{"step": 1}]
    assert transport.process.returncode == 0


def echo_requests(count: int) -> list[bytes]:
    return [
        b'{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"n":%d}}' % (index, index)
        for index in range(count)
    ]


def spy_on_routing(connection: Connection, transport: Any) -> tuple[list[bytes], list[int]]:
    """The frames the connection routes, in order, and for each write the transport gets, how
    many had been routed by then."""
    routed: list[bytes] = []
    routed_when_written: list[int] = []
    receive_line, write = connection.receive_line, transport.write

    def counting(line: bytes) -> None:
        routed.append(line)
        receive_line(line)

    def spying(data: bytes, *, batch: int = 0) -> None:
        routed_when_written.append(len(routed))
        write(data, batch=batch)

    connection.receive_line = counting  # type: ignore[method-assign]
    transport.write = spying
    return routed, routed_when_written


async def test_a_large_read_is_routed_a_slice_at_a_time_so_answers_leave_early() -> None:
    """A read of 64 requests (one chunk, pull mode) is routed `ROUTE_SLICE` frames per
    event-loop turn: the first answers are written while most of the read still waits, so a
    busy peer can start on them (routing all 64 first made two of our processes take turns)."""
    from acp_protocol.runtime.flow_control import ROUTE_SLICE

    async def echo(params: Any, ctx: RequestContext) -> Any:
        return params["n"]

    async with connected(handlers({"echo": echo})) as (connection, peer):
        routed, routed_when_written = spy_on_routing(connection, connection._transport)
        requests = echo_requests(64)
        peer.transport.write(b"\n".join(requests) + b"\n")  # one chunk
        answers = await peer.receive_all(64)
    assert [answer["result"] for answer in answers] == list(range(64))
    assert len(routed) == 64
    assert routed_when_written[0] <= 2 * ROUTE_SLICE < 64


class PushedEnd:
    """A push transport on one end of a memory pair (`PushTransport`): what `feed` gets reaches
    the sink at once, in one call per read (pipes, our WebSocket client) or per message (our
    WebSocket server), and is kept while reading is paused."""

    def __init__(self, end: Any, per_message: bool) -> None:
        self.end = end
        self.per_message = per_message
        self.sink: Any = None
        self.paused = False
        self.kept: list[bytes] = []

    async def read(self) -> bytes:
        return bytes(await self.end.read())

    def write(self, data: bytes, *, batch: int = 0) -> None:
        self.end.write(data, batch=batch)

    async def drain(self) -> None:
        await self.end.drain()

    def writing_paused(self) -> bool:
        return bool(self.end.writing_paused())

    async def close(self) -> None:
        await self.end.close()

    def deliver_to(self, sink: Any) -> bool:
        self.sink = sink
        return True

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False
        while self.kept and not self.paused:
            self.sink(self.kept.pop(0))

    def feed(self, chunk: bytes) -> None:
        pieces = [line + b"\n" for line in chunk.split(b"\n") if line]
        for piece in pieces if self.per_message else [chunk]:
            if self.paused:
                self.kept.append(piece)
            else:
                self.sink(piece)


@pytest.mark.parametrize("per_message", [False, True], ids=["per-read", "per-message"])
async def test_a_pushed_read_is_routed_a_slice_per_turn_so_answers_leave_early(
    per_message: bool,
) -> None:
    """Push mode: a read of 64 requests, handed over in one call (pipes, our WebSocket client)
    or one call per message (our WebSocket server), is routed `ROUTE_SLICE` frames per
    event-loop turn, as pull mode routes it. The first answers are written while most of the
    read still waits, so the peer starts on them: routing the whole read first made two of our
    processes over WebSocket take turns, each idle half the time (64 in flight, `make bench`
    (k))."""
    from acp_protocol.runtime.flow_control import ROUTE_SLICE
    from acp_protocol.runtime.transports.memory import memory_pair

    ours, theirs = memory_pair()
    pushed = PushedEnd(ours, per_message)

    async def echo(params: Any, ctx: RequestContext) -> Any:
        return params["n"]

    async with Connection(pushed, handlers({"echo": echo})) as connection:
        assert pushed.sink is not None  # reading is pushed
        routed, routed_when_written = spy_on_routing(connection, pushed)
        requests = echo_requests(64)
        pushed.feed(b"\n".join(requests) + b"\n")
        answers: list[bytes] = []
        while len(answers) < 64:
            chunk = await asyncio.wait_for(theirs.read(), 5)
            answers += [line for line in chunk.split(b"\n") if line]
    assert [json.loads(answer)["result"] for answer in answers] == list(range(64))
    assert len(routed) == 64 and not pushed.kept
    assert routed_when_written[0] <= ROUTE_SLICE < 64
