"""Receiving `$/cancel_request`, and a handler cancelling itself (ACP `cancellation.mdx`)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from acp_protocol.runtime import CancelSource, RequestCancelled, RequestContext

from tests.runtime.support import connected, deadline, handlers, settle


def blocking_handlers() -> tuple[Any, asyncio.Event]:
    """A `wait` method that blocks until cancelled, and an event set when it started."""
    running = asyncio.Event()

    async def wait(params: Any, ctx: RequestContext) -> Any:
        running.set()
        await asyncio.Event().wait()

    async def graceful(params: Any, ctx: RequestContext) -> Any:
        running.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await ctx.notify("session/update", {"flushed": True})
            return {"stopReason": "cancelled", "source": ctx.cancel_source.value}  # type: ignore[union-attr]

    async def quick(params: Any, ctx: RequestContext) -> Any:
        return "done"

    return handlers({"wait": wait, "graceful": graceful, "quick": quick}), running


def cancelled(request_id: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": -32800,
            "message": "Request cancelled",
            "data": {"requestId": request_id},
        },
    }


@pytest.mark.parametrize("request_id", [0, 7, "s-1"])
async def test_cancel_while_running_is_answered_request_cancelled(request_id: Any) -> None:
    """The receiver "MUST send one of these responses for the original request: … An error
    response with code `-32800`"; the TS SDK's `data: {"requestId"}` is kept. Id 0 and string ids
    are ids like any other."""
    table, running = blocking_handlers()
    async with connected(table) as (connection, peer):
        peer.request(request_id, "wait")
        await running.wait()
        peer.cancel(request_id)
        assert await peer.receive() == cancelled(request_id)
        await peer.expect_silence()  # the notification itself is never answered
        assert connection.in_flight_count == 0


async def test_cancel_before_the_handler_starts_is_answered_request_cancelled() -> None:
    """The request and its cancel arrive together behind a notification that still waits (so the
    request does not start at once, see the next test): the handler never runs, the answer still
    comes ("MUST send one of these responses")."""
    ran = False

    async def work(params: Any, ctx: RequestContext) -> Any:
        nonlocal ran
        ran = True
        return "ran"

    async with connected(handlers({"work": work})) as (_, peer):
        note = b'{"jsonrpc":"2.0","method":"session/update","params":{}}\n'
        request = b'{"jsonrpc":"2.0","id":3,"method":"work"}\n'
        cancel = b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}'
        peer.send_line(note + request + cancel)  # one chunk: all routed before any task runs
        assert await peer.receive() == cancelled(3)
        assert ran is False


@pytest.mark.skipif(sys.version_info < (3, 12), reason="eager task start is Python 3.12+")
async def test_a_handler_that_does_not_wait_is_answered_before_a_cancel_read_with_it() -> None:
    """Python 3.12+: a request's handler runs its first step as the request is read (an eager
    task), so one that never waits has answered before the cancel in the same chunk is routed;
    that cancel is for a finished request: "Send the normal response (not a cancellation
    error)"."""

    async def work(params: Any, ctx: RequestContext) -> Any:
        return "ran"

    async with connected(handlers({"work": work})) as (_, peer):
        request = b'{"jsonrpc":"2.0","id":3,"method":"work"}\n'
        cancel = b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}'
        peer.send_line(request + cancel)
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 3, "result": "ran"}
        await peer.expect_silence()


async def test_a_request_starts_after_the_notifications_read_before_it() -> None:
    """Notifications are handled in arrival order, and a request read after them starts after
    them (a `tool_call` update is seen before the permission request about it)."""
    order: list[str] = []

    async def update(params: Any) -> None:
        order.append(f"update {params['n']}")

    async def ask(params: Any, ctx: RequestContext) -> Any:
        order.append("request")
        return None

    async with connected(handlers({"ask": ask}, {"session/update": update})) as (_, peer):
        notes = b"".join(
            b'{"jsonrpc":"2.0","method":"session/update","params":{"n":%d}}\n' % n for n in range(3)
        )
        peer.send_line(notes + b'{"jsonrpc":"2.0","id":1,"method":"ask"}')
        await peer.receive()
        assert order == ["update 0", "update 1", "update 2", "request"]


async def test_cancel_while_waiting_for_a_concurrency_slot_is_answered() -> None:
    table, running = blocking_handlers()
    async with connected(table, max_concurrent_requests=1) as (_, peer):
        peer.request(1, "wait")
        await running.wait()
        peer.request(2, "quick")
        await settle()
        peer.cancel(2)
        assert await peer.receive() == cancelled(2)
        peer.cancel(1)
        assert await peer.receive() == cancelled(1)


async def test_graceful_handler_flushes_notifications_then_returns_a_partial_result() -> None:
    """The receiver "MAY finish sending any pending notifications before responding" and may
    answer with "A valid response with appropriate data (such as partial results or
    cancellation marker)"."""
    table, running = blocking_handlers()
    async with connected(table) as (_, peer):
        peer.request(1, "graceful")
        await running.wait()
        peer.cancel(1)
        update, answer = await peer.receive_all(2)
        assert update["method"] == "session/update" and update["params"] == {"flushed": True}
        assert answer == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"stopReason": "cancelled", "source": "peer"},
        }


async def test_cancel_for_finished_request_is_ignored() -> None:
    """RFD: "If a request completes normally before the cancellation notification is processed,
    the implementation should: 1. Send the normal response (not a cancellation error) 2. Ignore
    the subsequent cancellation notification for that request ID"."""
    table, _ = blocking_handlers()
    async with connected(table) as (_, peer):
        peer.request(1, "quick")
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": "done"}
        peer.cancel(1)
        await peer.expect_silence()


async def test_cancel_racing_a_finished_handler_keeps_the_normal_answer() -> None:
    """The handler finished in the same tick the cancel was routed: its result stands."""

    async def instant(params: Any, ctx: RequestContext) -> Any:
        return "done"

    async with connected(handlers({"instant": instant})) as (_, peer):
        peer.request(1, "instant")
        await asyncio.sleep(0)  # the handler task ran to completion; its answer is not yet written
        peer.cancel(1)
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": "done"}
        await peer.expect_silence()


@pytest.mark.parametrize(
    "params",
    [
        {"requestId": 999},
        {"requestId": "1"},  # a string is not the integer 1
        {"requestId": True},
        {"requestId": None},
        {"requestId": [1]},
        {},
        None,
        "1",
    ],
)
async def test_cancel_for_unknown_or_malformed_id_is_ignored_silently(params: Any) -> None:
    """A notification is never answered; unknown and malformed ids change nothing."""
    table, running = blocking_handlers()
    async with connected(table) as (connection, peer):
        peer.request(1, "wait")
        await running.wait()
        peer.notify("$/cancel_request", params)
        await peer.expect_silence()
        assert connection.in_flight_count == 1
        peer.cancel(1)
        assert await peer.receive() == cancelled(1)


async def test_duplicate_cancel_gives_one_answer() -> None:
    table, running = blocking_handlers()
    async with connected(table) as (_, peer):
        peer.request(1, "wait")
        await running.wait()
        peer.cancel(1)
        peer.cancel(1)
        assert await peer.receive() == cancelled(1)
        peer.cancel(1)
        await peer.expect_silence()


async def test_cancel_request_sent_as_a_request_is_method_not_found() -> None:
    """LSP: "If a server or client receives a request starting with '$/' it must error the
    request with error code `MethodNotFound`"; the TS SDK does the same for ACP."""
    table, _ = blocking_handlers()
    async with connected(table) as (_, peer):
        peer.request(5, "$/cancel_request", {"requestId": 1})
        answer = await peer.receive()
        assert answer["id"] == 5 and answer["error"]["code"] == -32601


async def test_handler_raising_request_cancelled_is_answered_like_a_peer_cancel() -> None:
    """Internal cancellation: the executing party "SHOULD: Send the same `-32800` (Cancelled)
    error response as if `$/cancel_request` was received" (the TS SDK sends -32603 here)."""

    async def give_up(params: Any, ctx: RequestContext) -> Any:
        raise RequestCancelled()

    async with connected(handlers({"give_up": give_up})) as (_, peer):
        peer.request(4, "give_up")
        assert await peer.receive() == cancelled(4)


async def test_handler_timing_out_is_answered_request_cancelled() -> None:
    """ "the agent side hits a context limit, a timeout or shutdown": -32800, not -32603."""

    async def slow(params: Any, ctx: RequestContext) -> Any:
        async with deadline(0.01):
            await asyncio.Event().wait()

    async with connected(handlers({"slow": slow})) as (_, peer):
        peer.request(4, "slow")
        assert await peer.receive() == cancelled(4)


async def test_handler_failing_after_cancel_is_still_answered_request_cancelled() -> None:
    """ "Ensure consistent behavior regardless of cancellation source": an error raised while
    being cancelled does not turn into -32603."""

    async def messy(params: Any, ctx: RequestContext) -> Any:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("cleanup failed") from None

    async with connected(handlers({"messy": messy})) as (_, peer):
        peer.request(1, "messy")
        await settle()
        peer.cancel(1)
        assert await peer.receive() == cancelled(1)


async def test_context_reports_cancellation_as_flag_and_awaitable() -> None:
    seen: list[Any] = []

    async def watch(params: Any, ctx: RequestContext) -> Any:
        seen.append(ctx.cancel_requested)
        waiter = asyncio.create_task(ctx.wait_cancelled())
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.wait_for(waiter, 1)
            seen.append((ctx.cancel_requested, ctx.cancel_source))

    async with connected(handlers({"watch": watch})) as (_, peer):
        peer.request(1, "watch")
        await settle()
        peer.cancel(1)
        assert await peer.receive() == cancelled(1)
        assert seen == [False, (True, CancelSource.PEER)]


async def test_close_answers_in_flight_requests_request_cancelled() -> None:
    """Shutdown is internal cancellation: in-flight requests are answered -32800 before closing."""
    table, running = blocking_handlers()
    async with connected(table) as (connection, peer):
        peer.request(1, "wait")
        await running.wait()
        await connection.close()
        assert await peer.receive() == cancelled(1)
        with pytest.raises(EOFError):
            await peer.receive()
