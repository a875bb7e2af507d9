"""ACP v2 over stdio, client side: our Go v2 client (tests/go/interop/v2client, through the session
view `v2.AgentPeer.Session`: `Prompt` → the message id, `Idle` → the stop reason, `Cancel`) against
the official TypeScript SDK 2.4.0's v2 agent (tests/interop/node/ts_v2_agent.mjs, on
`experimental/v2`) and our Python v2 agent (tests/interop/our_v2_agent.py). Each test runs against
both agents and quotes the v2 schema rule it checks (schema/acp/v2/schema.json)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tests.go.support import go_program
from tests.interop.support import INTEROP, NODE_PEERS, node, of, run_event_peer, states

AGENTS = ("official_ts_v2_agent", "our_python_v2_agent")


def agent_command(agent: str) -> tuple[str, ...]:
    if agent == "official_ts_v2_agent":
        return (node(), str(NODE_PEERS / "ts_v2_agent.mjs"))
    return (sys.executable, str(INTEROP / "our_v2_agent.py"))


async def our_go_v2_client(scenario: str, agent: str) -> list[dict[str, Any]]:
    """The JSON lines of our Go v2 client running `scenario` against `agent`."""
    command = (go_program("v2client"), scenario, *agent_command(agent))
    return await run_event_peer(f"v2client {scenario}", *command)


def words(updates: list[dict[str, Any]]) -> list[str]:
    """The words of the agent message chunks (the official agent keeps the spaces, ours not)."""
    chunks = [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    return "".join(u["content"]["text"] + " " for u in chunks).split()


each_agent = pytest.mark.parametrize("agent", AGENTS)


@each_agent
async def test_our_go_client_gets_the_message_id_at_insertion_and_the_echo_carries_it(
    agent: str,
) -> None:
    """PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
    conversation"; PromptResponse.messageId: "The corresponding user-message session update
    carries this same identifier and may arrive before or after this response"."""
    events = await our_go_v2_client("prompt", agent)
    [init] = of(events, "initialize")
    assert init["protocolVersion"] == 2
    [answer] = of(events, "prompt")
    updates = of(events, "update")
    echo = updates[0]
    assert echo["sessionUpdate"] == "user_message"
    assert echo["messageId"] == answer["messageId"]
    assert echo["content"] == [{"type": "text", "text": "hello big world"}]


@each_agent
async def test_our_go_client_waits_for_idle_and_gets_the_stop_reason(agent: str) -> None:
    """StateUpdate: "the agent MUST report `running` when foreground work starts [...] and
    `idle` when it ends. The agent SHOULD include a stop reason on that idle update"; "A new
    session defaults to idle until a state update reports otherwise" (the view's `Idle` waits
    for the idle after the message's echo)."""
    events = await our_go_v2_client("prompt", agent)
    updates = of(events, "update")
    assert states(updates) == [
        "user_message",
        "state_update:running",
        *["agent_message_chunk"] * 3,
        "state_update:idle:end_turn",
    ]
    assert words(updates) == ["hello", "big", "world"]
    assert of(events, "idle") == [{"event": "idle", "n": 1, "stopReason": "end_turn"}]
    [view] = of(events, "view")
    assert view["updates"] == [u["sessionUpdate"] for u in updates]
    assert (view["state"], view["stopReason"]) == ("idle", "end_turn")


@each_agent
async def test_our_go_clients_session_cancel_ends_the_work_cancelled_and_the_held_prompt_32800(
    agent: str,
) -> None:
    """CancelSessionNotification: "Notification to cancel a session's foreground work and its
    prompts not yet inserted"; the stop reason `cancelled` on the idle update."""
    events = await our_go_v2_client("cancel", agent)
    assert [e["n"] for e in of(events, "prompt")] == [1]
    [held] = of(events, "error")
    assert (held["n"], held["code"]) == (2, -32800)
    assert of(events, "sent") == [{"event": "sent", "method": "session/cancel"}]
    assert of(events, "idle") == [{"event": "idle", "n": 1, "stopReason": "cancelled"}]
    updates = of(events, "update")
    assert [u["sessionUpdate"] for u in updates].count("user_message") == 1
    assert states(updates)[-1] == "state_update:idle:cancelled", "nothing after the idle update"


@each_agent
async def test_a_graceful_idle_sends_session_cancel_when_its_context_ends_and_gets_cancelled(
    agent: str,
) -> None:
    """The view's `Idle` with an `acp.Graceful` ctx that ends (Ctrl-C) sends `session/cancel`
    once and keeps waiting for the idle update: IdleStateUpdate's stop reason `cancelled`."""
    events = await our_go_v2_client("interrupt", agent)
    assert of(events, "sent") == [{"event": "sent", "method": "session/cancel"}]
    assert of(events, "idle") == [{"event": "idle", "n": 1, "stopReason": "cancelled"}]
    assert states(of(events, "update"))[-1] == "state_update:idle:cancelled"


@each_agent
async def test_our_go_client_allows_the_permission_request_and_the_work_goes_on_to_end_turn(
    agent: str,
) -> None:
    """StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as a
    whole cannot progress without user action, including permissions or elicitations. Once
    reported, it MUST report `running` when progress resumes"."""
    events = await our_go_v2_client("permission_selected", agent)
    [answer] = of(events, "permission_answer")
    assert answer["result"] == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    updates = of(events, "update")
    assert states(updates)[1:4] == [
        "state_update:running",
        "state_update:requires_action",
        "state_update:running",
    ]
    assert words(updates) == ["please", "ask", "permission"]
    assert of(events, "idle") == [{"event": "idle", "n": 1, "stopReason": "end_turn"}]


@each_agent
async def test_the_agent_withdraws_its_permission_request_and_our_sdk_answers_cancelled(
    agent: str,
) -> None:
    """RequestPermissionOutcome: "The client answers a request the agent cancels with
    `$/cancel_request` with this outcome": after our `session/cancel`, the agent cancels its
    pending request and our handler's ctx ends by the peer."""
    events = await our_go_v2_client("permission_cancel_request", agent)
    [withdrawn] = of(events, "cancel_request")
    [asked] = of(events, "permission")
    assert asked["cancelled_by_peer"] is True
    [answer] = of(events, "permission_answer")
    assert answer["result"] == {"outcome": {"outcome": "cancelled"}}
    assert withdrawn["requestId"] is not None
    assert "state_update:requires_action" in states(of(events, "update"))
    assert of(events, "idle") == [{"event": "idle", "n": 1, "stopReason": "cancelled"}]


@each_agent
async def test_session_close_during_work_has_the_idle_cancelled_update_before_its_answer(
    agent: str,
) -> None:
    """CloseSessionRequest: "When closing cancels active foreground work, the Agent MUST send the
    final updates for that work and the idle `state_update` with `stopReason: "cancelled"`
    before responding successfully to `session/close`"."""
    events = await our_go_v2_client("close", agent)
    assert of(events, "close") == [{"event": "close"}]
    assert of(events, "close_order") == [
        {"event": "close_order", "idle_before_close": True, "stopReason": "cancelled"}
    ]
    assert of(events, "idle") == [{"event": "idle", "n": 1, "stopReason": "cancelled"}]


@each_agent
async def test_our_go_client_patches_meta_by_top_level_key_and_lists_the_session(
    agent: str,
) -> None:
    """SessionInfoUpdate._meta: "An object patches the stored metadata by top-level key: keys it
    omits are unchanged, a key set to `null` is removed, and any other value replaces that key's
    stored value without merging nested objects" (`acp.ApplySessionInfoUpdate` under
    `v2.Behaviour`'s policy); "Omitted fields leave the existing session info unchanged"."""
    events = await our_go_v2_client("meta", agent)
    assert [e["title"] for e in of(events, "info")] == ["value", "absent"]
    assert of(events, "meta") == [{"event": "meta", "value": {"nested": {"b": 2}}}]
    [title] = of(events, "title")
    [session] = of(events, "session")
    [listed] = of(events, "list")
    assert [s["sessionId"] for s in listed["sessions"]] == [session["sessionId"]]
    assert listed["sessions"][0]["title"] == title["value"]


async def test_a_title_set_to_null_arrives_as_null_and_clears_the_title() -> None:
    """SessionInfoUpdate.title: "Human-readable title for the session. Set to null to clear."
    (Our Python agent only: the official agent's titles are always strings.)"""
    events = await our_go_v2_client("untitled", "our_python_v2_agent")
    assert [e["title"] for e in of(events, "info")] == ["value", "absent", "null"]
    cleared = [u for u in of(events, "update") if "title" in u][-1]
    assert cleared["title"] is None
    assert of(events, "title") == [{"event": "title", "value": None}]
    [listed] = of(events, "list")
    assert "title" not in listed["sessions"][0]
