"""ACP v2 end to end over stdio, Python target: the official TypeScript SDK 2.4.0's
`experimental/v2` apps (tests/interop/node/ts_v2_{client,agent}.mjs) against our generated v2
agent (our_v2_agent.py) and client (our_v2_client.py), both directions; and one agent of ours
for v1 and v2 clients (`acp_protocol.agents`), which the official v1 and v2 clients each reach in
their own protocol; and one client of ours (`acp_protocol.agents.spawn_agent_versions`) that
continues in v1 with the official v1 agent and in v2 with the official v2 agent. Each test quotes
the v2 schema rule it checks.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import pytest
from acp_protocol.agents import spawn_agent_versions
from acp_protocol.v1 import client as v1_client
from acp_protocol.v1 import models as v1_models
from acp_protocol.v2 import builders
from acp_protocol.v2 import client as v2_client
from acp_protocol.v2 import models as v2_models

from tests.interop.support import INTEROP, NODE_PEERS, PEER_TIMEOUT, node, run_json_peer

OUR_V2_AGENT = (sys.executable, str(INTEROP / "our_v2_agent.py"))
OUR_DUAL_AGENT = (*OUR_V2_AGENT, "--dual")


async def their_v2_client(scenario: str, *agent: str) -> list[dict[str, Any]]:
    """The official v2 client's observation lines for `scenario` against `agent`."""
    process = await asyncio.create_subprocess_exec(
        node(),
        str(NODE_PEERS / "ts_v2_client.mjs"),
        *agent,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "ACP_V2_SCENARIO": scenario},
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), PEER_TIMEOUT)
    if process.returncode != 0:
        pytest.fail(f"ts_v2_client {scenario} exited {process.returncode}: {stderr.decode()}")
    events = [json.loads(line) for line in stdout.decode().splitlines() if line]
    assert events[-1] == {"event": "done"}
    return events


def states(events: list[dict[str, Any]]) -> list[str]:
    return [e["state"] for e in events if e.get("sessionUpdate") == "state_update"]


def first(events: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(e for e in events if e.get("event") == name)


# -- their v2 client, our v2 agent --------------------------------------------------------------


async def test_their_v2_client_gets_a_message_id_and_running_then_idle_end_turn() -> None:
    """PromptResponse: "acknowledging that a user prompt was inserted"; StateUpdate: "the agent
    MUST report `running` when foreground work starts [...] and `idle` when it ends"."""
    events = await their_v2_client("prompt", *OUR_V2_AGENT)
    assert first(events, "initialize")["protocolVersion"] == 2
    message_id = first(events, "prompt")["messageId"]
    echo = next(e for e in events if e.get("sessionUpdate") == "user_message")
    assert echo["messageId"] == message_id
    assert states(events) == ["running", "idle"]
    assert first(events, "idle")["stopReason"] == "end_turn"
    words = [
        e["content"]["text"] for e in events if e.get("sessionUpdate") == "agent_message_chunk"
    ]
    assert words == ["hello", "big", "world"]


async def test_their_session_cancel_ends_our_work_cancelled_and_the_held_prompt_minus_32800() -> (
    None
):
    """CancelSessionNotification: "cancel a session's foreground work and its prompts not yet
    inserted"."""
    events = await their_v2_client("cancel", *OUR_V2_AGENT)
    assert first(events, "idle")["stopReason"] == "cancelled"
    held = first(events, "error")
    assert (held["n"], held["code"]) == (2, -32800)


async def test_our_agent_cancels_its_pending_permission_request_on_session_cancel() -> None:
    """The work's nested `session/request_permission` gets `$/cancel_request` when the work is
    cancelled; the official client's handler sees its signal abort."""
    events = await their_v2_client("permission", *OUR_V2_AGENT)
    assert first(events, "permission")["cancelled_by_request"] is True
    assert first(events, "idle")["stopReason"] == "cancelled"


async def test_our_agent_sends_idle_cancelled_before_answering_session_close() -> None:
    """CloseSessionRequest: "the Agent MUST send the final updates for that work and the idle
    `state_update` with `stopReason: "cancelled"` before responding successfully"."""
    events = await their_v2_client("close", *OUR_V2_AGENT)
    assert first(events, "idle")["stopReason"] == "cancelled"
    assert first(events, "close_order")["idle_before_close"] is True


async def test_our_meta_patches_reach_their_client_and_session_list_is_advertised() -> None:
    """SessionInfoUpdate._meta: "a key set to `null` is removed, and any other value replaces that
    key's stored value without merging nested objects"; AgentCapabilities.session: "Supplying `{}`
    means the agent supports the baseline session methods" (session/list among them)."""
    events = await their_v2_client("meta", *OUR_V2_AGENT)
    assert first(events, "initialize")["capabilities"] == {"session": {}}
    assert first(events, "meta")["value"] == {"nested": {"b": 2}}
    (listed,) = first(events, "list")["sessions"]
    assert listed["title"] == "Words" and listed["_meta"] == {"nested": {"b": 2}}


# -- our v2 client, their v2 agent --------------------------------------------------------------


async def our_v2_client(scenario: str) -> dict[str, Any]:
    return await run_json_peer(
        sys.executable,
        str(INTEROP / "our_v2_client.py"),
        scenario,
        node(),
        str(NODE_PEERS / "ts_v2_agent.mjs"),
    )


def our_states(report: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (e["state"], e.get("stopReason"))
        for e in report["events"]
        if e.get("sessionUpdate") == "state_update"
    ]


async def test_our_v2_client_prompts_their_agent_to_idle_end_turn() -> None:
    report = await our_v2_client("prompt")
    assert report["initialize"]["protocolVersion"] == 2
    assert report["prompt"]["messageId"]
    assert our_states(report) == [("running", None), ("idle", "end_turn")]
    # The session view: the idle update after the prompt's own echo, with its stop reason.
    assert report["view_stop_reason"] == "end_turn"
    assert report["view_updates"][-1] == "state_update"
    assert "agent_message_chunk" in report["view_updates"]


async def test_our_session_cancel_ends_their_work_and_our_held_prompt_gets_minus_32800() -> None:
    report = await our_v2_client("cancel")
    assert report["held"] == {"error": -32800}
    assert our_states(report)[-1] == ("idle", "cancelled")


async def test_their_cancel_request_of_our_pending_permission_is_answered_cancelled() -> None:
    """RequestPermissionOutcome: "The client answers a request the agent cancels with
    `$/cancel_request` with this outcome": the official agent reads it and ends `cancelled`."""
    report = await our_v2_client("permission")
    assert report["permission_cancelled_by_peer"] is True
    assert our_states(report)[-1] == ("idle", "cancelled")


async def test_our_session_close_during_their_work_gets_idle_cancelled_first() -> None:
    report = await our_v2_client("close")
    events = report["events"]
    idle = next(i for i, e in enumerate(events) if e.get("state") == "idle")
    assert events[idle]["stopReason"] == "cancelled"
    assert idle < events.index({"closed": True})


async def test_our_client_applies_their_meta_patches_by_top_level_key() -> None:
    report = await our_v2_client("meta")
    assert report["meta"] == {"nested": {"b": 2}}
    assert [s["sessionId"] for s in report["list"]["sessions"]] == ["ts-v2-1"]


# -- one agent, v1 and v2 clients -----------------------------------------------------------------


async def test_the_official_v1_client_gets_v1_from_our_dual_agent() -> None:
    report = await run_json_peer(
        node(), str(NODE_PEERS / "ts_client.mjs"), "prompt", *OUR_DUAL_AGENT
    )
    assert report["initialize"]["protocolVersion"] == 1
    assert report["response"] == {"stopReason": "end_turn"}


async def test_the_official_v2_client_gets_v2_from_our_dual_agent() -> None:
    events = await their_v2_client("prompt", *OUR_DUAL_AGENT)
    assert first(events, "initialize")["protocolVersion"] == 2
    assert states(events) == ["running", "idle"]


# -- one client, v1 and v2 agents -----------------------------------------------------------------

OURS = {"name": "ours", "version": "0"}


def v1_offer() -> tuple[v1_client.Client, dict[str, Any]]:
    return v1_client.Client(), {"clientCapabilities": {}, "clientInfo": OURS}


def v2_offer() -> tuple[v2_client.Client, dict[str, Any]]:
    return v2_client.Client(), {"info": OURS}


async def test_our_client_asking_for_v2_continues_in_v1_with_the_official_v1_agent() -> None:
    """InitializeResponse.protocolVersion: "the highest protocol version supported by the agent
    that is at or below the version requested": the official v1 agent answers 1."""
    program = str(NODE_PEERS / "ts_agent.mjs")
    async with spawn_agent_versions(node(), program, v1=v1_offer(), v2=v2_offer()) as agent:
        assert agent.version == 1
        connection = agent.connection
        assert isinstance(connection, v1_client.ClientConnection)
        new = v1_models.NewSessionRequest(cwd="/interop", mcp_servers=[])
        session_id = (await connection.agent.session_new(new)).session_id
        text = v1_models.ContentBlockText(text="stream")
        prompt = v1_models.PromptRequest(session_id=session_id, prompt=[text])
        answer = await asyncio.wait_for(connection.agent.session_prompt(prompt), PEER_TIMEOUT)
    assert answer.stop_reason == "end_turn"


async def test_our_client_asking_for_v2_gets_v2_from_the_official_v2_agent() -> None:
    program = str(NODE_PEERS / "ts_v2_agent.mjs")
    async with spawn_agent_versions(node(), program, v1=v1_offer(), v2=v2_offer()) as agent:
        assert agent.version == 2
        connection = agent.connection
        assert isinstance(connection, v2_client.ClientConnection)
        new = v2_models.NewSessionRequest(cwd="/interop")
        view = connection.session((await connection.agent.session_new(new)).session_id)
        message_id = await view.prompt([builders.content_block.text("one two")])
        idle = await asyncio.wait_for(view.idle(message_id), PEER_TIMEOUT)
    assert idle.stop_reason == "end_turn"
