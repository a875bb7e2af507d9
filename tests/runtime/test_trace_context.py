"""W3C trace context: `traceparent`, `tracestate` and `baggage` at the root of an incoming
request's `params._meta` go to the nested requests made while handling it (meta-propagation RFD)."""

from __future__ import annotations

from typing import Any

from acp_protocol.runtime import RequestContext
from acp_protocol.runtime.trace_context import trace_context_of, with_trace_context
from acp_protocol.v1 import models

from tests.runtime.support import connected, handlers

TRACE = {
    "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "tracestate": "vendor=value",
    "baggage": "user=ann",
}


async def nested_read(params: Any, ctx: RequestContext) -> Any:
    read = models.ReadTextFileRequest(session_id="s", path="/a", meta={"mine": 1})
    return await ctx.request("fs/read_text_file", read)


async def test_trace_keys_of_the_incoming_request_reach_its_nested_requests() -> None:
    async with connected(handlers({"session/prompt": nested_read})) as (_, peer):
        peer.request(1, "session/prompt", {"sessionId": "s", "_meta": {**TRACE, "other": "x"}})
        nested = await peer.receive()
        assert nested["method"] == "fs/read_text_file"
        assert nested["params"]["_meta"] == {**TRACE, "mine": 1}
        assert nested["params"]["path"] == "/a"
        peer.send({"jsonrpc": "2.0", "id": nested["id"], "result": {"content": ""}})
        assert (await peer.receive())["id"] == 1


async def test_a_handler_that_sets_its_own_trace_context_keeps_it() -> None:
    async def own_trace(params: Any, ctx: RequestContext) -> Any:
        return await ctx.request("fs/read_text_file", {"_meta": {"traceparent": "00-own-01"}})

    async with connected(handlers({"session/prompt": own_trace})) as (_, peer):
        peer.request(1, "session/prompt", {"_meta": TRACE})
        nested = await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": nested["id"], "result": {}})
    assert nested["params"]["_meta"] == {"traceparent": "00-own-01"}


async def test_requests_without_a_traced_parent_are_sent_unchanged() -> None:
    async def plain(params: Any, ctx: RequestContext) -> Any:
        return await ctx.request("fs/read_text_file", {"path": "/a"})

    async with connected(handlers({"session/prompt": plain})) as (_, peer):
        peer.request(1, "session/prompt", {"_meta": {"traceparent": 7}})  # not a string: ignored
        nested = await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": nested["id"], "result": {}})
    assert nested["params"] == {"path": "/a"}


def test_trace_context_is_read_from_root_keys_only_and_never_mutates_params() -> None:
    assert trace_context_of({"_meta": {"otel": {"traceparent": "x"}}}) is None
    assert trace_context_of({"_meta": None}) is None
    original = {"path": "/a", "_meta": {"k": 1}}
    added = with_trace_context(original, {"baggage": "b"})
    assert added == {"path": "/a", "_meta": {"k": 1, "baggage": "b"}}
    assert original == {"path": "/a", "_meta": {"k": 1}}
    assert with_trace_context(None, {"baggage": "b"}) == {"_meta": {"baggage": "b"}}
