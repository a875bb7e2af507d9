"""The client state wired into our clients: no code in the user's client. The router feeds each
validated `session/update` (and the permission requests, the responses the table covers, v1's
prompts) to the connection's `ClientState`; the v2 session view and every client connection
read it. Our agents and clients over an in-memory pair."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_protocol.runtime import memory_pair
from acp_protocol.runtime.client_state import Applied
from acp_protocol.v1 import agent as v1_agent
from acp_protocol.v1 import client as v1_client
from acp_protocol.v1 import models as v1_models
from acp_protocol.v2 import builders
from acp_protocol.v2.agent import connect_agent
from acp_protocol.v2.client import Client, ClientContext, connect_client

from tests.typed.test_v2_behaviour import SESSION, WordsAgent


def text(blocks: list[dict[str, Any]]) -> str:
    return " ".join(block["text"] for block in blocks)


async def test_the_v2_view_reads_the_session_as_its_updates_left_it() -> None:
    ours, theirs = memory_pair()
    changes: list[Applied] = []
    async with connect_agent(WordsAgent(), theirs), connect_client(Client(), ours) as connection:
        view = connection.session(SESSION)
        unsubscribe = view.on_state_change(changes.append)
        message_id = await view.prompt([builders.content_block.text("hello big world")])
        await asyncio.wait_for(view.idle(message_id), 5)
        unsubscribe()
    state = view.session_state
    (user,) = state.entries("userMessage")
    assert user["messageId"] == message_id and text(user["content"]) == "hello big world"
    (agent,) = state.entries("agentMessage")
    assert text(agent["content"]) == "hello big world"
    assert state.get("state") == {"state": "idle", "stopReason": "end_turn"}
    assert view.state == "idle"  # the run state string is still the view's `state`
    assert view.state_snapshot() == connection.session_state(SESSION).snapshot()
    targets = [c.target for applied in changes for c in applied.changes]
    assert targets.count("agentMessage") == 3 and targets[-1] == "state"
    assert {applied.session for applied in changes} == {SESSION}


async def test_a_permission_request_upserts_the_tool_call_it_embeds() -> None:
    class Asking(Client):
        async def session_request_permission(self, params: Any, ctx: ClientContext) -> Any:
            return {"outcome": {"outcome": "selected", "optionId": "ok"}}

    class ToolAgent(WordsAgent):
        async def session_prompt(self, params: Any, ctx: Any) -> None:
            await ctx.client.session_request_permission(
                {
                    "sessionId": params.session_id,
                    "title": "Edit?",
                    "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
                    "subject": {
                        "type": "tool_call",
                        "toolCall": {"toolCallId": "t1", "title": "Edit a.txt"},
                    },
                }
            )
            return None

    ours, theirs = memory_pair()
    async with connect_agent(ToolAgent(), theirs), connect_client(Asking(), ours) as connection:
        view = connection.session(SESSION)
        await asyncio.wait_for(view.idle(await view.prompt([builders.content_block.text("x")])), 5)
    assert connection.session_state(SESSION).entries("toolCall") == [
        {"toolCallId": "t1", "title": "Edit a.txt"}
    ]


class ChunkingV1Agent(v1_agent.Agent):
    """A v1 agent as people run them: chunks without `messageId`, a tool call and its update."""

    async def initialize(self, params: Any, ctx: Any) -> Any:
        return v1_models.InitializeResponse(protocol_version=1)

    async def session_new(self, params: Any, ctx: Any) -> Any:
        return v1_models.NewSessionResponse(session_id="v1-s")

    async def session_prompt(self, params: v1_models.PromptRequest, ctx: Any) -> Any:
        updates: list[dict[str, Any]] = [
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi"}},
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Read",
                "status": "pending",
            },
            {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}},
        ]
        for update in updates:
            await ctx.client.session_update({"sessionId": params.session_id, "update": update})
        return v1_models.PromptResponse(stop_reason="end_turn")


async def test_a_v1_client_keeps_one_agent_message_per_prompt_turn() -> None:
    ours, theirs = memory_pair()
    seen: list[Applied] = []
    prompt = v1_models.PromptRequest.model_validate(
        {"sessionId": "v1-s", "prompt": [{"type": "text", "text": "go"}]}
    )
    agent = v1_agent.connect_agent(ChunkingV1Agent(), theirs)
    async with agent, v1_client.connect_client(v1_client.Client(), ours) as connection:
        connection.on_state_change(seen.append, "v1-s")
        for _ in range(2):  # the updates arrive before the prompt's answer
            await connection.agent.session_prompt(prompt)
    state = connection.session_state("v1-s")
    messages = state.get("agentMessage")
    assert list(messages) == ["turn:1", "turn:2"]
    assert [text(m["content"]) for m in messages.values()] == ["Hi done", "Hi done"]
    assert state.entries("toolCall") == [
        {"toolCallId": "t1", "title": "Read", "status": "completed"}
    ]
    assert len([c for applied in seen for c in applied.changes]) == 8


def test_client_state_and_each_editions_table_come_from_the_entry_points() -> None:
    """As TypeScript exports them: `ClientState` from the runtime, `STATE_TABLE` per edition."""
    import acp_protocol.v1
    import acp_protocol.v2
    import acp_protocol.v2.unstable
    from acp_protocol.runtime import ClientState
    from acp_protocol.v2.state import STATE_TABLE

    assert acp_protocol.v2.STATE_TABLE is STATE_TABLE
    assert acp_protocol.v1.STATE_TABLE is not acp_protocol.v2.STATE_TABLE
    state = ClientState(acp_protocol.v2.unstable.STATE_TABLE)
    update: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "messageId": "m1"}
    update["content"] = {"type": "text", "text": "hi"}
    message = {"method": "session/update", "params": {"sessionId": "s", "update": update}}
    state.apply(message)
    (entry,) = state.session("s").entries("agentMessage")
    assert entry["content"] == [{"type": "text", "text": "hi"}]
