"""Cancelling our own outgoing requests: ambient (task cancellation, timeouts), graceful
(`CancelSignal`), and the cascade from a cancelled handler to its nested requests."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from acp_protocol.runtime import (
    CancelSignal,
    CancelSource,
    RequestCancelled,
    RequestContext,
    RequestOptions,
)

from tests.runtime.support import connected, deadline, eventually, handlers, settle, tapped

CANCEL_1 = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}}


async def test_cancelled_caller_sends_cancel_request_once_and_cancelled_error_propagates() -> None:
    """ "when the Python task awaiting `request(...)` is cancelled … the runtime sends the
    dialect's cancel notification once … and lets `CancelledError` propagate"."""
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("session/prompt", {}))
        await peer.receive()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await peer.receive() == CANCEL_1
        await peer.expect_silence()


async def test_late_answer_to_an_abandoned_request_is_dropped_silently(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The id is kept so the late answer "is matched by id and dropped"."""
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("x"))
        await peer.receive()
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        assert await peer.receive() == CANCEL_1
        assert connection.pending_count == 1
        with caplog.at_level(logging.DEBUG, logger="acp_protocol.runtime"):
            peer.send({"jsonrpc": "2.0", "id": 1, "error": {"code": -32800, "message": "c"}})
            await settle()
        assert connection.pending_count == 0
        assert "unknown request" not in caplog.text
        await peer.expect_silence()


async def test_timeout_sends_cancel_request_and_raises_timeout_error() -> None:
    async with connected() as (connection, peer):
        with pytest.raises(TimeoutError):
            async with deadline(0.02):
                await connection.request("slow")
        frames = await peer.receive_all(2)
        assert frames[1] == CANCEL_1
        with pytest.raises((TimeoutError, asyncio.TimeoutError)):  # the same class from 3.11
            await asyncio.wait_for(connection.request("slow"), 0.02)
        frames = await peer.receive_all(2)
        assert frames[1]["params"] == {"requestId": 2}


async def test_request_cancelled_before_it_was_written_is_not_sent() -> None:
    """ "A request whose cancellation was requested before it was written is not sent at all"
    (the TS SDK sends it, then `$/cancel_request`)."""
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("never"))
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        signal = CancelSignal()
        signal.cancel()
        with pytest.raises(RequestCancelled) as caught:
            await connection.request("never", None, RequestOptions(cancel=signal))
        assert caught.value.data == {"sent": False}
        await peer.expect_silence()
        assert connection.pending_count == 0


async def test_graceful_cancel_returns_the_peers_partial_result() -> None:
    """The caller "MAY implement graceful cancellation processing by waiting for the response
    from the remote side" and must accept "partial results or cancellation marker"."""
    async with connected() as (connection, peer):
        signal = CancelSignal()
        call = asyncio.create_task(
            connection.request("session/prompt", {}, RequestOptions(cancel=signal))
        )
        await peer.receive()
        signal.cancel()
        signal.cancel()
        assert await peer.receive() == CANCEL_1
        await peer.expect_silence()  # once
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "cancelled"}})
        assert await call == {"stopReason": "cancelled"}


async def test_graceful_cancel_raises_the_peers_request_cancelled() -> None:
    async with connected() as (connection, peer):
        signal = CancelSignal()
        call = asyncio.create_task(connection.request("x", None, RequestOptions(cancel=signal)))
        await peer.receive()
        signal.cancel()
        await peer.receive()
        error = {"code": -32800, "message": "Request cancelled", "data": {"requestId": 1}}
        peer.send({"jsonrpc": "2.0", "id": 1, "error": error})
        with pytest.raises(RequestCancelled) as caught:
            await call
        assert caught.value.code == -32800 and caught.value.data == {"requestId": 1}


async def test_graceful_cancel_accepts_a_normal_result_after_the_race() -> None:
    """RFD: the receiver that already finished sends "the normal response"."""
    async with connected() as (connection, peer):
        signal = CancelSignal()
        call = asyncio.create_task(connection.request("x", None, RequestOptions(cancel=signal)))
        await peer.receive()
        signal.cancel()
        peer.send({"jsonrpc": "2.0", "id": 1, "result": "complete"})
        assert await call == "complete"


async def test_one_signal_cancels_several_requests() -> None:
    async with connected() as (connection, peer):
        signal = CancelSignal()
        calls = [
            asyncio.create_task(connection.request("x", None, RequestOptions(cancel=signal)))
            for _ in range(3)
        ]
        await peer.receive_all(3)
        signal.cancel("user pressed stop")
        cancels = await peer.receive_all(3)
        assert sorted(c["params"]["requestId"] for c in cancels) == [1, 2, 3]
        for n in (1, 2, 3):
            peer.send({"jsonrpc": "2.0", "id": n, "result": None})
        assert await asyncio.gather(*calls) == [None, None, None]


def relay(method: str, *, cascade: bool = True) -> Any:
    """A handler that makes one nested request `method` and returns its result."""

    async def handle(params: Any, ctx: RequestContext) -> Any:
        return await ctx.request(method, params, RequestOptions(cascade=cascade))

    return handle


async def block(params: Any, ctx: RequestContext) -> Any:
    await asyncio.Event().wait()


async def test_cascade_two_levels_deep_cancels_children_before_answering_parents() -> None:
    """RFD: "1. Cancel the primary request activity 2. Propagate cancellation to any
    nested/child requests … 4. Send cancellation responses for all affected requests"; the
    diagram cancels the nested requests before answering `session/prompt`.

    left → right `prompt`; right's handler → left `read` (child); left's handler → right
    `ask` (grandchild), which blocks. Cancelling `prompt` must cancel `read`, then `ask`."""
    left_side = handlers({"read": relay("ask")})
    right_side = handlers({"prompt": relay("read"), "ask": block})
    async with tapped(left_side, right_side) as (left, right, tap):
        call = asyncio.create_task(left.request("prompt", {}))
        await eventually(lambda: right.in_flight_count == 2)  # prompt and ask
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(
            lambda: not (right.in_flight_count or left.in_flight_count or left.pending_count)
        )
        order = [
            (writer, frame.get("method") or frame.get("error", {}).get("code"), _id(frame))
            for writer, frame in tap.frames
        ]
        assert order == [
            ("left", "prompt", 1),
            ("right", "read", 1),
            ("left", "ask", 2),
            ("left", "$/cancel_request", 1),  # the caller gives up on prompt
            ("right", "$/cancel_request", 1),  # right cascades to read …
            ("left", "$/cancel_request", 2),  # … left cascades to ask …
            ("right", -32800, 2),  # ask answered
            ("left", -32800, 1),  # read answered after its child
            ("right", -32800, 1),  # prompt answered last
        ]


def _id(frame: dict[str, Any]) -> Any:
    if "id" in frame:
        return frame["id"]
    return frame["params"]["requestId"]


async def test_detached_child_is_cancelled_before_the_parent_is_answered() -> None:
    """A nested request awaited in another task is still a child of the handler."""
    children: list[asyncio.Task[Any]] = []

    async def spawner(params: Any, ctx: RequestContext) -> Any:
        children.append(asyncio.create_task(ctx.request("read")))
        await asyncio.Event().wait()

    async with tapped(handlers({"read": block}), handlers({"spawn": spawner})) as (
        left,
        right,
        tap,
    ):
        call = asyncio.create_task(left.request("spawn"))
        await eventually(lambda: children)
        await settle()
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        await eventually(lambda: not (right.in_flight_count or left.in_flight_count))
        methods = [f.get("method") or f["error"]["code"] for w, f in tap.frames if w == "right"]
        assert methods == ["read", "$/cancel_request", -32800]
        with pytest.raises(RequestCancelled):  # left answered read -32800; its caller sees it
            await children[0]


async def test_cascade_opt_out_leaves_the_nested_request_running() -> None:
    """`cascade=False`: the parent's cancellation does not reach that nested request."""
    nested_started = asyncio.Event()

    async def slow_read(params: Any, ctx: RequestContext) -> Any:
        nested_started.set()
        await asyncio.sleep(0.05)
        return "read"

    left_side = handlers({"read": slow_read})
    right_side = handlers({"prompt": relay("read", cascade=False)})
    async with tapped(left_side, right_side) as (left, right, tap):
        call = asyncio.create_task(left.request("prompt"))
        await asyncio.wait_for(nested_started.wait(), 2)
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        await eventually(lambda: not (right.pending_count or left.in_flight_count))
        assert [writer for writer, _ in tap.cancels()] == ["left"]  # only prompt's own cancel
        read_answer = next(f for w, f in tap.frames if w == "left" and "result" in f)
        assert read_answer["result"] == "read"


async def test_nested_request_of_a_cancelled_handler_is_not_sent() -> None:
    outcome: list[Any] = []

    async def stubborn(params: Any, ctx: RequestContext) -> Any:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            try:
                await ctx.request("read")
            except RequestCancelled as error:
                outcome.append(error.data)
            return "partial"

    async with connected(handlers({"stubborn": stubborn})) as (_, peer):
        peer.request(1, "stubborn")
        await settle()
        peer.cancel(1)
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": "partial"}
        assert outcome == [{"sent": False}]


async def test_cancel_request_by_id_sends_the_dialects_cancel_and_keeps_waiting() -> None:
    """`Connection.cancel_request(id)`: the documented way to send `$/cancel_request` for one of
    our pending requests; an id that is not pending is refused (False), nothing is sent."""
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("session/prompt", {}))
        await peer.receive()
        assert connection.cancel_request(1, "user asked") is True
        assert await peer.receive() == CANCEL_1
        assert connection.cancel_request(99) is False
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "cancelled"}})
        assert await call == {"stopReason": "cancelled"}
        await peer.expect_silence()


def test_cancel_source_is_a_str_of_its_wire_word() -> None:
    assert isinstance(CancelSource.PEER, str)
    assert str(CancelSource.PEER) == "peer"
    assert CancelSource("session") is CancelSource.SESSION
