"""The peer going away (EOF, broken pipe, process exit), and closing our side."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import (
    Connection,
    ConnectionClosed,
    RequestCancelled,
    RequestContext,
    open_fds,
    spawn_process,
)

from tests.runtime.support import connected, eventually, handlers, settle, tapped

SHUTDOWN_TIMEOUT = 5.0
"""`Connection`'s default wait for cancelled handlers at close."""


async def test_every_pending_caller_fails_at_eof() -> None:
    """ "every pending caller fails promptly with a `ConnectionClosed` error": at EOF itself,
    with no timeout of its own to wait out (a caller still waiting after 5 s fails the test)."""
    async with connected() as (connection, peer):
        calls = [asyncio.create_task(connection.request("x")) for _ in range(50)]
        await peer.receive_all(50)
        await peer.close()
        gathered = asyncio.gather(*calls, return_exceptions=True)
        results = await asyncio.wait_for(gathered, 5)
        assert all(isinstance(r, ConnectionClosed) for r in results)
        await asyncio.wait_for(connection.wait_closed(), 1)


async def test_handlers_still_running_after_the_eof_grace_are_cancelled_and_no_task_is_left() -> (
    None
):
    cancelled = asyncio.Event()

    async def block(params: Any, ctx: RequestContext) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    before = asyncio.all_tasks()
    async with connected(handlers({"block": block}), eof_grace=0.1) as (connection, peer):
        peer.request(1, "block")
        await settle()
        await peer.close()
        await asyncio.wait_for(connection.wait_closed(), 1)
        assert cancelled.is_set()
        assert connection.in_flight_count == 0 and connection.pending_count == 0
        await settle()
        assert asyncio.all_tasks() == before


async def test_close_is_idempotent_and_later_calls_fail() -> None:
    async with connected() as (connection, _):
        await asyncio.gather(connection.close(), connection.close())
        await connection.close()
        assert connection.closed
        with pytest.raises(ConnectionClosed):
            await connection.request("x")
        with pytest.raises(ConnectionClosed):
            await connection.notify("x")


async def test_child_process_exit_fails_pending_callers() -> None:
    """A spawned agent that dies: the pending request fails, nothing hangs."""
    transport = await spawn_process(
        sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(3)"
    )
    async with Connection(transport) as connection:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(connection.request("session/prompt", {}), 5)
    assert transport.process.returncode == 3


async def test_closing_a_spawned_process_connection_ends_the_process() -> None:
    transport = await spawn_process(
        sys.executable, "-c", "import time; time.sleep(60)", exit_timeout=0.2
    )
    connection = Connection(transport)
    connection.start()
    started = time.perf_counter()
    await connection.close()
    assert transport.process.returncode is not None
    assert time.perf_counter() - started < 10


async def test_close_cancels_nested_requests_and_lets_handlers_flush_first() -> None:
    """Shutdown is internal cancellation: a handler awaiting a nested request sees it cancelled
    and answered, may still send its notifications, and is answered -32800, all promptly."""

    async def prompt(params: Any, ctx: RequestContext) -> Any:
        try:
            return await ctx.request("read")
        finally:
            await ctx.notify("session/update", {"last": True})

    async def block(params: Any, ctx: RequestContext) -> Any:
        await asyncio.Event().wait()

    async with tapped(handlers({"read": block}), handlers({"prompt": prompt})) as (
        left,
        right,
        tap,
    ):
        call = asyncio.create_task(left.request("prompt"))
        await eventually(lambda: left.in_flight_count)
        started = time.perf_counter()
        await right.close()
        # The blocked handler ends on its cancellation: close never waits out its 5 s timeout.
        assert time.perf_counter() - started < SHUTDOWN_TIMEOUT
        with pytest.raises(RequestCancelled):  # the -32800 answer went out before the close
            await call
        from_right = [f.get("method") or f["error"]["code"] for w, f in tap.frames if w == "right"]
        assert from_right == ["read", "$/cancel_request", "session/update", -32800]


async def test_request_arriving_during_shutdown_is_answered_request_cancelled() -> None:
    release = asyncio.Event()

    async def slow(params: Any, ctx: RequestContext) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            await release.wait()  # holds the shutdown open

    async with connected(handlers({"slow": slow})) as (connection, peer):
        peer.request(1, "slow")
        await settle()
        closing = asyncio.create_task(connection.close())
        await settle()
        peer.request(2, "slow")
        answer = await peer.receive()
        assert answer["id"] == 2 and answer["error"]["code"] == -32800
        release.set()
        await closing
        assert (await peer.receive())["id"] == 1


async def test_every_notification_sent_before_eof_reaches_its_handler() -> None:
    """A peer that writes 1,000 updates and exits: all 1,000 are handled before the connection
    reports closed (they were 9 of 1,000 when the worker was cancelled with its queue full)."""
    seen: list[int] = []

    async def update(params: Any) -> None:
        await asyncio.sleep(0)
        seen.append(params["n"])

    async with connected(handlers(notifications={"session/update": update})) as (connection, peer):
        for n in range(1000):
            peer.notify("session/update", {"n": n})
        await peer.close()
        await asyncio.wait_for(connection.wait_closed(), 10)
        assert seen == list(range(1000))


async def test_a_closed_output_pipe_closes_the_connection_promptly() -> None:
    """The peer stopped reading (our stdout closed: EPIPE): the connection closes at once instead
    of running on unheard, so `run_agent` returns."""
    our_read, their_write = os.pipe()
    their_read, our_write = os.pipe()
    connection = Connection(await open_fds(our_read, our_write))
    connection.start()
    os.close(their_read)  # nobody will ever read what we write
    await asyncio.wait_for(connection.wait_closed(), 5)  # not left running on unheard
    os.close(their_write)


HALF_CLOSED_SESSION = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
    {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "session/prompt",
        "params": {"sessionId": "py-1", "prompt": [{"type": "text", "text": "stream"}]},
    },
]


def test_requests_written_before_the_client_closes_its_end_are_all_answered() -> None:
    """Half-close (`printf … | agent`): the requests read before end of input are carried out
    and answered, the prompt with its streamed updates, not cancelled `-32800`; the agent then
    exits on its own."""
    agent = Path(__file__).resolve().parents[1] / "interop" / "our_agent.py"
    frames = "".join(json.dumps(frame) + "\n" for frame in HALF_CLOSED_SESSION)
    done = subprocess.run(
        [sys.executable, str(agent)], input=frames, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    assert sorted(answers) == [1, 2, 3]
    assert all("result" in answer for answer in answers.values()), answers
    assert answers[3]["result"] == {"stopReason": "end_turn"}
    updates = [m for m in map(json.loads, done.stdout.splitlines()) if "method" in m]
    assert len(updates) == 3
