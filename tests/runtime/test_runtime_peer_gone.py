"""The peer going away (EOF, broken pipe, process exit), and closing our side."""

from __future__ import annotations

import asyncio
import os
import sys
import time
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


async def test_every_pending_caller_fails_within_100ms_of_eof() -> None:
    """ "every pending caller fails promptly with a `ConnectionClosed` error"."""
    async with connected() as (connection, peer):
        calls = [asyncio.create_task(connection.request("x")) for _ in range(50)]
        await peer.receive_all(50)
        started = time.perf_counter()
        await peer.close()
        results = await asyncio.gather(*calls, return_exceptions=True)
        elapsed = time.perf_counter() - started
        assert all(isinstance(r, ConnectionClosed) for r in results)
        assert elapsed < 0.1
        await asyncio.wait_for(connection.wait_closed(), 1)


async def test_in_flight_handlers_are_cancelled_and_no_task_is_left() -> None:
    cancelled = asyncio.Event()

    async def block(params: Any, ctx: RequestContext) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    before = asyncio.all_tasks()
    async with connected(handlers({"block": block})) as (connection, peer):
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
        assert time.perf_counter() - started < 0.5
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
    started = time.perf_counter()
    await asyncio.wait_for(connection.wait_closed(), 5)
    assert time.perf_counter() - started < 1
    os.close(their_write)
