"""`Connection.request` and a handler's `ctx.request` take the keywords Python users expect
(`cancel=`, `cascade=`, `parse=`) as well as one `RequestOptions` value; both forms work, and a
keyword wins over the value's own option."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_protocol.runtime import CancelSignal, RequestContext, RequestOptions

from tests.runtime.support import connected, eventually, handlers, tapped

CANCEL_1 = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}}


async def test_cancel_keyword_cancels_gracefully_and_the_partial_result_comes_back() -> None:
    async with connected() as (connection, peer):
        signal = CancelSignal()
        call = asyncio.create_task(connection.request("session/prompt", {}, cancel=signal))
        await peer.receive()
        signal.cancel()
        assert await peer.receive() == CANCEL_1
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "cancelled"}})
        assert await call == {"stopReason": "cancelled"}


async def test_parse_keyword_shapes_the_result() -> None:
    async with connected() as (connection, peer):
        call = asyncio.create_task(connection.request("x", None, parse=lambda r: r["n"] * 2))
        await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {"n": 21}})
        assert await call == 42


async def test_a_keyword_wins_over_the_options_value() -> None:
    async with connected() as (connection, peer):
        options = RequestOptions(parse=lambda r: "from options")
        call = asyncio.create_task(connection.request("x", None, options, parse=lambda r: "kw"))
        await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": 1, "result": 1})
        assert await call == "kw"


@pytest.mark.parametrize("form", ["keyword", "options"])
async def test_cascade_false_in_either_form_keeps_a_nested_request_running(form: str) -> None:
    """`cascade=False`: the parent's cancellation does not reach that nested request."""
    nested_started = asyncio.Event()

    async def slow_read(params: Any, ctx: RequestContext) -> Any:
        nested_started.set()
        await asyncio.sleep(0.05)
        return "read"

    async def prompt(params: Any, ctx: RequestContext) -> Any:
        if form == "keyword":
            return await ctx.request("read", params, cascade=False)
        return await ctx.request("read", params, RequestOptions(cascade=False))

    async with tapped(handlers({"read": slow_read}), handlers({"prompt": prompt})) as (
        left,
        right,
        tap,
    ):
        call = asyncio.create_task(left.request("prompt"))
        await asyncio.wait_for(nested_started.wait(), 2)
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        await eventually(lambda: not (right.pending_count or left.in_flight_count))
        assert [writer for writer, _ in tap.cancels()] == ["left"]  # only prompt's own cancel
