"""W3C trace context: `traceparent`, `tracestate` and `baggage` at the root of an incoming
request's `params._meta` go to the nested requests and the notifications sent while handling it.

The rule, from the meta-propagation RFD and ACP `extensibility.mdx`: "The following root-level keys
in `_meta` SHOULD be reserved for W3C trace context … `traceparent`, `tracestate`, `baggage`";
`params._meta` is the carrier, with the keys at its root (docs/session-metadata.md, Trace context).
"""

from __future__ import annotations

from typing import Any

from acp_protocol.runtime import RequestContext, memory_pair
from acp_protocol.runtime.trace_context import trace_context_of, with_trace_context
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext, connect_agent
from acp_protocol.v2 import agent as v2_agent
from acp_protocol.v2 import models as v2_models

from tests.runtime.support import RawPeer, connected, handlers

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


async def test_trace_keys_of_the_incoming_request_reach_the_notifications_its_handler_sends() -> (
    None
):
    async def streaming(params: Any, ctx: RequestContext) -> Any:
        await ctx.notify("session/update", {"sessionId": "s", "_meta": {"mine": 1}})
        await ctx.connection.notify("session/update", {"sessionId": "s"})  # found by its task
        return {}

    async with connected(handlers({"session/prompt": streaming})) as (_, peer):
        peer.request(1, "session/prompt", {"sessionId": "s", "_meta": {**TRACE, "other": "x"}})
        first, second, answer = await peer.receive_all(3)
    assert first["params"] == {"sessionId": "s", "_meta": {**TRACE, "mine": 1}}
    assert second["params"] == {"sessionId": "s", "_meta": TRACE}
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}


async def test_a_notification_with_its_own_trace_context_or_outside_a_handler_is_unchanged() -> (
    None
):
    async def own_trace(params: Any, ctx: RequestContext) -> Any:
        await ctx.notify("session/update", {"_meta": {"baggage": "mine"}})
        return {}

    async with connected(handlers({"session/prompt": own_trace})) as (connection, peer):
        peer.request(1, "session/prompt", {"_meta": TRACE})
        own, _ = await peer.receive_all(2)
        await connection.notify("session/update", {"sessionId": "s"})
        outside = await peer.receive()
    assert own["params"] == {"_meta": {"baggage": "mine"}}
    assert outside["params"] == {"sessionId": "s"}


async def test_a_traceparent_on_a_prompt_reaches_the_agents_nested_read_and_its_updates() -> None:
    """Issue 25's trace test, through the typed layer: a v1 agent's `fs/read_text_file` and its
    `session/update`s carry the prompt's `traceparent`, `tracestate` and `baggage`."""

    class Reading(Agent):
        async def session_prompt(
            self, params: models.PromptRequest, ctx: AgentContext
        ) -> models.PromptResponse:
            read = models.ReadTextFileRequest(session_id=params.session_id, path="/a")
            contents = await ctx.client.fs_read_text_file(read)
            chunk = models.SessionUpdateAgentMessageChunk(
                content=models.ContentBlockText(text=contents.content)
            )
            await ctx.client.session_update(
                models.SessionNotification(session_id=params.session_id, update=chunk)
            )
            return models.PromptResponse(stop_reason="end_turn")

    ours, theirs = memory_pair()
    async with connect_agent(Reading(), ours):
        peer = RawPeer(theirs)
        prompt = {"sessionId": "s", "prompt": [], "_meta": TRACE}
        peer.request(1, "session/prompt", prompt)
        read = await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": read["id"], "result": {"content": "hello"}})
        update, answer = await peer.receive_all(2)
    assert (read["method"], read["params"]["_meta"]) == ("fs/read_text_file", TRACE)
    assert (update["method"], update["params"]["_meta"]) == ("session/update", TRACE)
    assert update["params"]["update"]["content"] == {"type": "text", "text": "hello"}
    assert answer["result"] == {"stopReason": "end_turn"}


async def test_v2_a_prompts_trace_context_is_on_every_update_of_its_insertion_and_work() -> None:
    """At insertion (v2) the SDK's own `user_message` and `state_update`s belong to the prompt
    too: each carries its trace context, as the work's own updates do."""

    class Streaming(v2_agent.Agent):
        async def session_prompt(
            self, params: v2_models.PromptRequest, ctx: v2_agent.AgentContext
        ) -> str | None:
            update = {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "a-1",
                "content": {"type": "text", "text": "hi"},
            }
            await ctx.client.session_update(
                v2_models.UpdateSessionNotification.model_validate(
                    {"sessionId": params.session_id, "update": update}
                )
            )
            return None

    ours, theirs = memory_pair()
    async with v2_agent.connect_agent(Streaming(), ours):
        peer = RawPeer(theirs)
        prompt = [{"type": "text", "text": "hello"}]
        peer.request(1, "session/prompt", {"sessionId": "s", "prompt": prompt, "_meta": TRACE})
        frames = [await peer.receive()]
        while frames[-1].get("params", {}).get("update", {}).get("state") != "idle":
            frames.append(await peer.receive())
    updates = [f["params"] for f in frames if f.get("method") == "session/update"]
    kinds = [u["update"]["sessionUpdate"] for u in updates]
    assert kinds == ["user_message", "state_update", "agent_message_chunk", "state_update"]
    assert [u["_meta"] for u in updates] == [TRACE] * 4
