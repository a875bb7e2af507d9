"""Request ids, the two tables, ordering and concurrency of the dispatcher."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from typing import Any

import pytest
from acp_protocol.runtime import Connection, RequestContext, RpcError, memory_pair, open_fds
from acp_protocol.runtime.model import ProtocolModel

from tests.runtime.support import RawPeer, connected, deadline, eventually, handlers, linked, settle


async def test_our_request_ids_are_integers_from_1() -> None:
    async with connected() as (connection, peer):
        first = asyncio.create_task(connection.request("a", {}))
        second = asyncio.create_task(connection.request("b"))
        frames = await peer.receive_all(2)
        assert [f["id"] for f in frames] == [1, 2]
        assert frames[0] == {"jsonrpc": "2.0", "id": 1, "method": "a", "params": {}}
        assert "params" not in frames[1]
        peer.send({"jsonrpc": "2.0", "id": 2, "result": "two"})
        peer.send({"jsonrpc": "2.0", "id": 1, "result": "one"})
        assert await first == "one" and await second == "two"
        assert connection.pending_count == 0


@pytest.mark.parametrize("request_id", [0, -1, 2**53, "", "0", "req-7"])
async def test_peer_request_ids_are_echoed_exactly(request_id: Any) -> None:
    """Integers (0 included) and strings are ids; the answer carries the same id, same type."""

    async def ping(params: Any, ctx: RequestContext) -> Any:
        return {"id": ctx.request_id}

    async with connected(handlers({"ping": ping})) as (_, peer):
        peer.request(request_id, "ping")
        answer = await peer.receive()
        assert answer == {"jsonrpc": "2.0", "id": request_id, "result": {"id": request_id}}
        assert type(answer["id"]) is type(request_id)


async def test_an_answered_request_leaves_nothing_for_the_garbage_collector() -> None:
    """A handler's task holds its request (the ambient `current_request`): once answered, the
    request no longer holds the task, so both are freed at once, not left in a reference cycle
    for the collector (one per request)."""

    async def ping(params: Any, ctx: RequestContext) -> Any:
        return {}

    async with connected(handlers({"ping": ping})) as (_, peer):
        peer.request(0, "ping")
        await peer.receive()  # warm: what is made once
        gc.collect()
        gc.disable()
        try:
            for request_id in range(1, 51):
                peer.request(request_id, "ping")
                await peer.receive()
            await settle()
            found = gc.collect()
        finally:
            gc.enable()
    assert found == 0


async def test_a_handler_runs_in_a_task_named_after_its_method() -> None:
    async def ping(params: Any, ctx: RequestContext) -> Any:
        task = asyncio.current_task()
        return {"task": None if task is None else task.get_name()}

    async with connected(handlers({"session/ping": ping})) as (_, peer):
        peer.request(1, "session/ping")
        assert (await peer.receive())["result"] == {"task": "session/ping"}


async def test_peer_error_is_raised_to_the_caller_as_rpc_error() -> None:
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("x"))
        await peer.receive()
        peer.send(
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "no", "data": 1}}
        )
        with pytest.raises(RpcError) as caught:
            await call
        assert (caught.value.code, caught.value.message, caught.value.data) == (-32000, "no", 1)


async def test_malformed_error_response_fails_the_caller_instead_of_hanging() -> None:
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("x"))
        await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": 1, "error": "boom"})
        with pytest.raises(RpcError) as caught:
            await call
        assert caught.value.code == -32603


async def test_notifications_are_handled_in_arrival_order() -> None:
    """A `session/update` stream must not reorder, even when a handler awaits in between."""
    seen: list[int] = []

    async def update(params: Any) -> None:
        if params["n"] % 3 == 0:
            await asyncio.sleep(0.001)
        seen.append(params["n"])

    async with connected(handlers(notifications={"session/update": update})) as (_, peer):
        for n in range(300):
            peer.notify("session/update", {"n": n})
        async with deadline(5):
            while len(seen) < 300:
                await asyncio.sleep(0.005)
        assert seen == list(range(300))


async def test_requests_are_handled_concurrently() -> None:
    """A slow request does not hold back a later one (nor the cancel notification for it)."""
    release = asyncio.Event()

    async def slow(params: Any, ctx: RequestContext) -> Any:
        await release.wait()
        return "slow"

    async def fast(params: Any, ctx: RequestContext) -> Any:
        return "fast"

    async with connected(handlers({"slow": slow, "fast": fast})) as (_, peer):
        peer.request(1, "slow")
        peer.request(2, "fast")
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 2, "result": "fast"}
        release.set()
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": "slow"}


async def test_concurrency_bound_limits_running_handlers() -> None:
    running = 0
    peak = 0

    async def work(params: Any, ctx: RequestContext) -> Any:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.002)
        running -= 1
        return None

    async with connected(handlers({"work": work}), max_concurrent_requests=3) as (_, peer):
        for n in range(20):
            peer.request(n, "work")
        answers = await peer.receive_all(20)
        assert sorted(a["id"] for a in answers) == list(range(20))
        assert peak == 3


async def test_duplicate_in_flight_id_is_refused_without_disturbing_the_first() -> None:
    release = asyncio.Event()

    async def slow(params: Any, ctx: RequestContext) -> Any:
        await release.wait()
        return "first"

    async with connected(handlers({"slow": slow})) as (connection, peer):
        peer.request(1, "slow")
        await settle()
        peer.request(1, "slow")
        refused = await peer.receive()
        assert refused["error"]["code"] == -32600
        release.set()
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": "first"}
        assert connection.in_flight_count == 0


async def test_exactly_one_response_per_request_and_frames_never_interleave() -> None:
    """200 concurrent requests, each answering after notifications: every line parses, one
    answer per id."""

    async def chatty(params: Any, ctx: RequestContext) -> Any:
        for n in range(3):
            await ctx.notify("progress", {"of": ctx.request_id, "n": n, "pad": "x" * 5000})
            await asyncio.sleep(0)
        return {"done": ctx.request_id}

    async with connected(handlers({"chatty": chatty})) as (connection, peer):
        for n in range(200):
            peer.request(n, "chatty")
        frames = await peer.receive_all(800)
        answers = [f for f in frames if "id" in f]
        assert sorted(a["id"] for a in answers) == list(range(200))
        assert all(a["result"] == {"done": a["id"]} for a in answers)
        await peer.expect_silence()
        assert connection.in_flight_count == 0


async def test_two_connections_round_trip() -> None:
    async def add(params: Any, ctx: RequestContext) -> Any:
        return params["a"] + params["b"]

    async with linked(right=handlers({"add": add})) as (left, _):
        assert await left.request("add", {"a": 2, "b": 3}) == 5


class ReadResult(ProtocolModel):
    """A model like the generated ones (they all derive from `ProtocolModel`)."""

    content: str


async def test_model_with_to_wire_is_encoded_through_it() -> None:
    async def read(params: Any, ctx: RequestContext) -> Any:
        return ReadResult(content="hi")

    async with connected(handlers({"fs/read_text_file": read})) as (_, peer):
        peer.request(1, "fs/read_text_file", {})
        assert (await peer.receive())["result"] == {"content": "hi"}


async def test_connection_without_handler_answers_method_not_found() -> None:
    ours, theirs = memory_pair()
    async with Connection(ours):
        peer = RawPeer(theirs)
        peer.request(1, "session/prompt", {})
        assert (await peer.receive())["error"]["code"] == -32601
        peer.notify("session/update", {})
        await peer.expect_silence()


async def test_notification_handler_crash_is_contained_and_later_ones_still_arrive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[int] = []

    async def update(params: Any) -> None:
        if params["n"] == 1:
            raise RuntimeError("bad update")
        seen.append(params["n"])

    async with connected(handlers(notifications={"session/update": update})) as (_, peer):
        for n in range(3):
            peer.notify("session/update", {"n": n})
        await eventually(lambda: len(seen) == 2)
        assert seen == [0, 2]
        assert "bad update" in caplog.text
        await peer.expect_silence()


async def test_reading_pauses_while_the_in_flight_bound_is_reached_and_resumes() -> None:
    """Flow control: a flood of requests cannot grow our memory without bound; nothing is lost,
    every request is answered once work completes."""
    release = asyncio.Event()

    async def slow(params: Any, ctx: RequestContext) -> Any:
        await release.wait()
        return params

    bounded = connected(handlers({"slow": slow}), max_queued=100, max_concurrent_requests=10)
    async with bounded as (connection, peer):
        for n in range(1000):
            peer.request(n, "slow", {"n": n})
        await eventually(lambda: connection.in_flight_count == 100)
        await asyncio.sleep(0.05)
        assert connection.in_flight_count == 100  # read no further
        release.set()
        answers = await peer.receive_all(1000)
        assert sorted(a["result"]["n"] for a in answers) == list(range(1000))


@pytest.mark.parametrize("push", [True, False], ids=["push", "pull"])
async def test_reading_pauses_while_the_peer_does_not_read_our_answers(push: bool) -> None:
    """A peer that sends requests and never reads the answers: our output pipe fills, the answers
    wait with their requests in flight, so we stop reading its requests at the in-flight bound
    (1.8 GB for 200k unread prompts before)."""
    handled = 0

    async def big(params: Any, ctx: RequestContext) -> Any:
        nonlocal handled
        handled += 1
        return "x" * 4096

    our_read, their_write = os.pipe()
    their_read, our_write = os.pipe()
    connection = Connection(
        await open_fds(our_read, our_write, push=push), handlers({"big": big}), max_queued=1000
    )
    connection.start()
    os.set_blocking(their_write, False)
    sent = 0
    with contextlib.suppress(BlockingIOError):
        for _ in range(20_000):
            os.write(their_write, b'{"jsonrpc":"2.0","id":%d,"method":"big"}\n' % sent)
            sent += 1
            if sent % 500 == 0:
                await asyncio.sleep(0.01)
    await asyncio.sleep(0.5)
    paused_at = handled
    await asyncio.sleep(0.3)
    assert handled == paused_at < sent  # bounded by what one read admitted, then paused
    os.close(their_read)
    os.close(their_write)
    await asyncio.wait_for(connection.close(), 10)


class BackedUpOutput:
    """Makes one end of a memory pair report its output as not being read until `release()`."""

    def __init__(self, transport: Any) -> None:
        self.read = asyncio.Event()
        transport.writing_paused = lambda: not self.read.is_set()
        transport.drain = self.read.wait

    def release(self) -> None:
        self.read.set()


async def test_an_answer_waiting_for_the_peer_to_read_keeps_its_request_in_flight() -> None:
    """Flow control: while our output is not read, a finished handler's answer waits and its
    request counts as in flight (so reading stops at `max_queued`); a cancel arriving then is for
    a finished request: "Send the normal response (not a cancellation error)"."""

    async def work(params: Any, ctx: RequestContext) -> Any:
        return "done"

    ours, theirs = memory_pair()
    output = BackedUpOutput(ours)
    async with Connection(ours, handlers({"work": work})) as connection:
        peer = RawPeer(theirs)
        peer.request(1, "work")
        await eventually(lambda: connection.in_flight_count == 1)
        await settle()
        assert connection.in_flight_count == 1  # handled, not yet answered
        peer.cancel(1)
        await settle()
        output.release()
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": "done"}
        assert connection.in_flight_count == 0
        await peer.expect_silence()


@pytest.mark.parametrize("push", [True, False], ids=["push", "pull"])
async def test_a_peer_that_floods_malformed_frames_and_reads_nothing_stops_being_read(
    push: bool,
) -> None:
    """Each malformed frame is answered (-32700); answers the peer has not read count as work, so
    reading stops at the bound instead of our output growing without one."""
    our_read, their_write = os.pipe()
    their_read, our_write = os.pipe()
    connection = Connection(
        await open_fds(our_read, our_write, push=push), handlers({}), max_queued=1000
    )
    connection.start()
    os.set_blocking(their_write, False)
    garbage = b"not json " * 20 + b"\n"
    sent = blocked = 0
    while sent < 50_000 and blocked < 10:  # until its pipe stays full for 0.5 s
        try:
            os.write(their_write, garbage)
        except BlockingIOError:
            blocked += 1
            await asyncio.sleep(0.05)
        else:
            sent += 1
            blocked = 0
            if sent % 500 == 0:
                await asyncio.sleep(0)
    assert sent < 50_000  # we stopped reading: its pipe filled and stayed full
    os.close(their_read)
    os.close(their_write)
    await asyncio.wait_for(connection.close(), 10)


async def test_requests_and_answers_tell_the_transport_how_many_may_share_a_write() -> None:
    """A pool of our requests, and our answers to a pool of the peer's, go out a quarter of the
    window at a time: each frame carries `exchange_batch` of the others still in flight (a
    quarter, at least 2; none: 0, nothing is expected to follow)."""
    ours, theirs = memory_pair()
    batches: list[int] = []
    write = ours.write

    def recording_write(data: bytes, *, batch: int = 0) -> None:
        batches.append(batch)
        write(data, batch=batch)

    ours.write = recording_write  # type: ignore[method-assign]

    go = asyncio.Event()

    async def echo(params: Any, ctx: RequestContext) -> Any:
        await go.wait()  # all 20 in flight first, whether handlers start eagerly (3.12+) or not
        return params

    peer = RawPeer(theirs)
    async with Connection(ours, handlers({"echo": echo})) as connection:
        calls = [asyncio.create_task(connection.request("read")) for _ in range(20)]
        await peer.receive_all(20)
        assert batches == [0] + [2] * 11 + [3] * 4 + [4] * 4  # 0 to 19 others pending
        batches.clear()
        for index in range(20):
            peer.request(100 + index, "echo", {"index": index})
        await eventually(lambda: connection.in_flight_count == 20)
        go.set()
        answers = await peer.receive_all(20)
        assert sorted(answer["id"] for answer in answers) == list(range(100, 120))
        assert batches == [4] * 4 + [3] * 4 + [2] * 11 + [0]  # 19 to 0 others in flight
        for call in calls:
            call.cancel()
