"""Our generated Python client keeps the session's state while it drives real v1 agents: one built
on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0, tests/interop/node/ts_agent.mjs),
and the SDK's own example agent (`dist/examples/agent.js` of @agentclientprotocol/sdk 0.17.0, as
tests/interop/production's lock installs it: 2.4.0's package leaves its examples out).

Issue 38: "a v1 client of ours driving a real v1 agent (the official TypeScript example agent)
ends with the same state as the updates describe". The expected state is worked out here from
what the client's own handlers received (each update, each permission request), independently
of the reducer: v1's chunks without `messageId` join the message of the prompt turn the client
sent ("the chunk belongs to the current prompt turn's message", `lowering/state_rules.py`), and
a permission request's tool call is upserted by `toolCallId` ("ToolCall: a tool call the
language model has requested, by `toolCallId`").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime.client_state import Applied
from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientContext, spawn_agent

from tests.interop.support import NODE_PEERS, node
from tests.paths import ROOT

EXAMPLE_AGENT = (
    ROOT / "tests/interop/production/node_modules/@agentclientprotocol/sdk/dist/examples/agent.js"
)


class WitnessClient(Client):
    """Records, as wire JSON, every update and permission request the agent sends; allows."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.asked: list[dict[str, Any]] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.updates.append(params.to_wire())

    async def session_request_permission(
        self, params: models.RequestPermissionRequest, ctx: ClientContext
    ) -> models.RequestPermissionResponse:
        self.asked.append(params.to_wire())
        chosen = models.RequestPermissionOutcomeSelected(outcome="selected", option_id="allow")
        return models.RequestPermissionResponse(outcome=chosen)


def prompt(session_id: str, text: str) -> models.PromptRequest:
    content = [models.ContentBlockText(type="text", text=text)]
    return models.PromptRequest(session_id=session_id, prompt=content)


async def test_our_client_ends_with_the_state_the_ts_agents_updates_describe(
    tmp_path: Path,
) -> None:
    client = WitnessClient()
    environment = {**os.environ, "ACP_INTEROP_EVENTS": str(tmp_path / "events")}
    agent = str(NODE_PEERS / "ts_agent.mjs")
    changes: list[Applied] = []
    turns: list[int] = []  # the number of updates received when each turn ended
    async with spawn_agent(client, node(), agent, env=environment) as connection:
        await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
        new = models.NewSessionRequest(cwd=str(NODE_PEERS), mcp_servers=[])
        session_id = (await connection.agent.session_new(new)).session_id
        connection.on_state_change(changes.append, session_id)
        for text in ("stream", "ask to look around", "stream"):
            answer = await connection.agent.session_prompt(prompt(session_id, text))
            assert answer.stop_reason == "end_turn"
            turns.append(len(client.updates))
        state = connection.session_state(session_id)
        snapshot = state.snapshot()

    # The agent's words, turn by turn, as the updates carried them.
    said: list[list[dict[str, Any]]] = []
    start = 0
    for end in turns:
        said.append([u["update"]["content"] for u in client.updates[start:end]])
        start = end
    assert all(u["update"]["sessionUpdate"] == "agent_message_chunk" for u in client.updates)
    assert [[c["text"] for c in turn] for turn in said] == [
        ["one ", "two ", "three"],
        ["Allowed. "],
        ["one ", "two ", "three"],
    ]
    # One agent message per prompt turn (v1 chunks carry no messageId), in arrival order.
    messages = {entry["id"]: entry["value"] for entry in snapshot["targets"]["agentMessage"]}
    assert list(messages) == ["turn:1", "turn:2", "turn:3"]
    assert [messages[f"turn:{n}"]["content"] for n in (1, 2, 3)] == said
    # The permission request's tool call, upserted by its id: what the agent asked about.
    (asked,) = client.asked
    tool_call = asked["toolCall"]
    assert state.entries("toolCall") == [tool_call]
    assert tool_call["title"] == "to look around"
    # A change event per applied update, after the state changed; nothing logged or malformed.
    assert len(changes) == len(client.updates) + len(client.asked)
    assert {(c.target, c.action) for a in changes for c in a.changes} == {
        ("agentMessage", "append"),
        ("toolCall", "upsert"),
    }
    assert snapshot["log"] == [] and snapshot["problems"] == []


class OrderedWitness(Client):
    """Records, in arrival order, every update and permission request's tool call; allows."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.events.append(params.to_wire()["update"])

    async def session_request_permission(
        self, params: models.RequestPermissionRequest, ctx: ClientContext
    ) -> models.RequestPermissionResponse:
        self.events.append({"sessionUpdate": "permission", **params.to_wire()["toolCall"]})
        chosen = models.RequestPermissionOutcomeSelected(outcome="selected", option_id="allow")
        return models.RequestPermissionResponse(outcome=chosen)


async def test_our_client_ends_with_the_state_the_official_example_agents_updates_describe() -> (
    None
):
    """The official example agent's turn: text, a tool call read and completed, more text, a tool
    call that needs permission (asked, allowed, completed), the closing text."""
    if not EXAMPLE_AGENT.is_file():
        pytest.fail(f"{EXAMPLE_AGENT} is not installed: run `make test` (npm ci)")
    client = OrderedWitness()
    async with spawn_agent(client, node(), str(EXAMPLE_AGENT)) as connection:
        await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
        new = models.NewSessionRequest(cwd=str(ROOT), mcp_servers=[])
        session_id = (await connection.agent.session_new(new)).session_id
        answer = await connection.agent.session_prompt(prompt(session_id, "go"))
        assert answer.stop_reason == "end_turn"
        snapshot = connection.session_state(session_id).snapshot()

    kinds = [event["sessionUpdate"] for event in client.events]
    assert kinds == [
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "tool_call",
        "permission",
        "tool_call_update",
        "agent_message_chunk",
    ]
    # What the updates describe, worked out without the reducer: the turn's one message holds
    # its chunks in order; each tool call holds the fields its updates last gave it ("omitted
    # fields leave the existing tool call value unchanged, … concrete values replace the
    # previous value", `ToolCallUpdate`).
    said = [e["content"] for e in client.events if e["sessionUpdate"] == "agent_message_chunk"]
    tool_calls: dict[str, dict[str, Any]] = {}
    for event in client.events:
        if event["sessionUpdate"] in ("tool_call", "tool_call_update", "permission"):
            fields = {k: v for k, v in event.items() if k != "sessionUpdate"}
            tool_calls.setdefault(event["toolCallId"], {}).update(fields)
    # (a v1 chunk has no `messageId`: its message is the prompt turn's, `turn:1`)
    message = {"messageId": "turn:1", "content": said}
    assert snapshot["targets"]["agentMessage"] == [{"id": "turn:1", "value": message}]
    found = snapshot["targets"]["toolCall"]
    assert found == [{"id": key, "value": value} for key, value in tool_calls.items()]
    assert [entry["value"]["status"] for entry in found] == ["completed", "completed"]
    assert found[1]["value"]["locations"] == [{"path": "/home/user/project/config.json"}]
    assert snapshot["log"] == [] and snapshot["problems"] == []
