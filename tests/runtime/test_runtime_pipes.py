"""Pipe transports (transport layer): the read side that keeps chunks or pushes them, and a
connection over real pipes reading either way.

A `PipeTransport` hands each chunk to the connection in the callback that read it (push) on
uvloop, and is read by a task elsewhere (pull); both must carry the same frames, in order, with
the same flow control.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from acp_protocol.runtime import Connection, RequestContext, open_fds, run
from acp_protocol.runtime.transports.pipes import PipeReader

from tests.runtime.support import eventually, handlers

PUSH_OR_PULL = pytest.mark.parametrize("push", [True, False], ids=["push", "pull"])


class FakePipe:
    """What `PipeReader` needs of its read transport, recording pauses."""

    def __init__(self) -> None:
        self.paused = False
        self.pauses = 0

    def pause_reading(self) -> None:
        self.paused = True
        self.pauses += 1

    def resume_reading(self) -> None:
        self.paused = False

    def is_closing(self) -> bool:
        return False


def reader_on_fake_pipe(limit: int = 100) -> tuple[PipeReader, FakePipe]:
    reader = PipeReader(limit)
    pipe = FakePipe()
    reader.connection_made(pipe)  # type: ignore[arg-type]
    return reader, pipe


async def test_a_sink_gets_every_chunk_as_it_is_read_and_the_end_once() -> None:
    reader, _ = reader_on_fake_pipe()
    delivered: list[bytes] = []
    assert reader.deliver_to(delivered.append)
    reader.data_received(b'{"a":1}\n{"b"')
    reader.data_received(b":2}\n")
    assert delivered == [b'{"a":1}\n{"b"', b":2}\n"]
    reader.eof_received()
    reader.connection_lost(None)
    assert delivered[-1] == b"" and delivered.count(b"") == 1


async def test_a_pipe_that_was_read_from_stays_read_by_read() -> None:
    """Bytes already taken into the pull buffer stay there, in order: no sink is attached."""
    reader, _ = reader_on_fake_pipe()
    reader.data_received(b'{"a":1}\n')
    delivered: list[bytes] = []
    assert not reader.deliver_to(delivered.append)
    assert await reader.read() == b'{"a":1}\n' and delivered == []


async def test_held_chunks_stop_the_pipe_only_past_twice_the_limit_and_arrive_whole() -> None:
    """Holding (flow control) is not stopping at once: two peers that each stopped reading as
    soon as their own output backed up would wait for each other forever."""
    reader, pipe = reader_on_fake_pipe(limit=100)
    delivered: list[bytes] = []
    reader.deliver_to(delivered.append)
    reader.hold()
    reader.data_received(b"x" * 150)
    assert not pipe.paused and delivered == []
    reader.data_received(b"y" * 100)
    assert pipe.paused  # 250 bytes kept: past twice the limit
    reader.eof_received()
    reader.release()
    assert delivered == [b"x" * 150 + b"y" * 100, b""]
    assert not pipe.paused


async def test_pull_mode_reads_up_to_the_limit_and_ends_with_empty_bytes() -> None:
    reader, pipe = reader_on_fake_pipe(limit=10)
    reader.data_received(b"0123456789")
    reader.data_received(b"abcdefghij!")
    assert pipe.paused  # 21 bytes unread: past twice the limit
    assert await reader.read() == b"0123456789"
    assert await reader.read() == b"abcdefghij"
    assert not pipe.paused
    assert await reader.read() == b"!"
    waiting = asyncio.ensure_future(reader.read())
    await asyncio.sleep(0)
    reader.data_received(b"late")
    assert await waiting == b"late"
    reader.connection_lost(None)
    assert await reader.read() == b""


async def pipe_pair(push: bool, left: Any = None, right: Any = None, **options: Any) -> Any:
    a_read, b_write = os.pipe()
    b_read, a_write = os.pipe()
    one = Connection(await open_fds(a_read, a_write, push=push), left, **options)
    two = Connection(await open_fds(b_read, b_write, push=push), right, **options)
    return one, two


@PUSH_OR_PULL
async def test_requests_and_a_notification_burst_arrive_whole_and_in_order(push: bool) -> None:
    seen: list[int] = []

    async def update(params: Any) -> None:
        seen.append(params["n"])

    async def echo(params: Any, ctx: RequestContext) -> Any:
        return params

    right = handlers({"echo": echo}, {"update": update})
    one, two = await pipe_pair(push, None, right)
    async with one, two:
        for n in range(2000):
            await one.notify("update", {"n": n})
        big = "x" * 300_000  # longer than one read: split across chunks
        answers = await asyncio.gather(*(one.request("echo", [n, big]) for n in range(50)))
        assert [a[0] for a in answers] == list(range(50)) and answers[0][1] == big
        await eventually(lambda: len(seen) == 2000)
        assert seen == list(range(2000))


@PUSH_OR_PULL
async def test_reading_pauses_at_the_in_flight_bound_and_nothing_is_lost(push: bool) -> None:
    """Reading stops once `max_queued` requests are in flight (past it by at most what one read
    brought), and goes on when they are answered."""
    release = asyncio.Event()
    padding = "p" * 2000  # 300 requests: about 600 kB, many reads

    async def slow(params: Any, ctx: RequestContext) -> Any:
        await release.wait()
        return params[0]

    one, two = await pipe_pair(push, None, handlers({"slow": slow}), max_queued=20)
    async with one, two:
        calls = [asyncio.ensure_future(one.request("slow", [n, padding])) for n in range(300)]
        await eventually(lambda: two.in_flight_count >= 20)
        await asyncio.sleep(0.05)
        paused_at = two.in_flight_count
        await asyncio.sleep(0.05)
        assert two.in_flight_count == paused_at < 300  # read no further
        release.set()
        assert await asyncio.gather(*calls) == list(range(300))


@PUSH_OR_PULL
async def test_two_peers_whose_output_backs_up_still_read_each_other(push: bool) -> None:
    """Both sides send each other requests with large params at once: each one's output is over
    the high-water mark while the other is busy writing, and neither waits for the other."""
    payload = {"text": "z" * 100_000}  # 2 MB each way: past what either side keeps unread

    async def echo(params: Any, ctx: RequestContext) -> Any:
        return len(params["text"])

    one, two = await pipe_pair(push, handlers({"echo": echo}), handlers({"echo": echo}))
    async with one, two:
        both = asyncio.gather(
            *(one.request("echo", payload) for _ in range(20)),
            *(two.request("echo", payload) for _ in range(20)),
        )
        assert await asyncio.wait_for(both, 10) == [100_000] * 40


async def delivers_by_default() -> bool:
    read_fd, write_fd = os.pipe()
    transport = await open_fds(read_fd, write_fd)
    try:
        return transport.deliver_to(lambda chunk: None)
    finally:
        await transport.close()


def test_pipes_push_on_uvloop_and_are_read_by_a_task_on_asyncio() -> None:
    """`push=None`: what measured faster on each loop (docs/benchmarks.md)."""
    assert run(delivers_by_default(), event_loop="asyncio") is False
    pytest.importorskip("uvloop")
    assert run(delivers_by_default(), event_loop="uvloop") is True
