"""ACP v2 end to end over real stdio subprocesses, in TypeScript on node: the official TypeScript
SDK 2.4.0's `experimental/v2` apps and our generated TypeScript package, in both directions, and one
agent of ours serving the official v1 and v2 clients each in its own protocol.

- Their v2 client (tests/interop/node/ts_v2_client.mjs, scenario in $ACP_V2_SCENARIO, JSON lines)
  against our v2 agent (tests/typescript/interop_v2_agent.ts: only the foreground work is the
  agent's; insertion, state updates, held prompts, cancel and close are the SDK's).
- Our v2 client (tests/typescript/interop_v2_client.ts, through the session view) against their v2
  agent (tests/interop/node/ts_v2_agent.mjs).
- Their v1 client (ts_client.mjs) and v2 client against our dual agent
  (tests/typescript/interop_dual_agent.ts, `serveAgents({v1, v2})`).
"""

from __future__ import annotations

from typing import Any

from tests.interop.support import (
    NODE_PEERS,
    node,
    of,
    our_ts_program,
    run_json_peer,
    run_their_v2_client,
    states,
)


async def their_v2_client(scenario: str, agent: str) -> list[dict[str, Any]]:
    """Their v2 client's JSON lines for `scenario` against our TypeScript program `agent`."""
    return await run_their_v2_client(scenario, node(), our_ts_program(agent))


async def our_v2_client(scenario: str) -> dict[str, Any]:
    return await run_json_peer(
        node(),
        our_ts_program("interop_v2_client"),
        scenario,
        node(),
        str(NODE_PEERS / "ts_v2_agent.mjs"),
    )


# -- their v2 client, our v2 agent --------------------------------------------------------------


async def test_their_client_gets_a_message_id_at_insertion_then_running_chunks_idle_end_turn() -> (
    None
):
    """PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
    conversation"; StateUpdate: "the agent MUST report `running` when foreground work starts … and
    `idle` when it ends"."""
    events = await their_v2_client("prompt", "interop_v2_agent")
    [init] = of(events, "initialize")
    assert init["protocolVersion"] == 2
    [answer] = of(events, "prompt")
    updates = of(events, "update")
    assert states(updates) == [
        "user_message",
        "state_update:running",
        *["agent_message_chunk"] * 3,
        "state_update:idle:end_turn",
    ]
    assert updates[0]["messageId"] == answer["messageId"]
    assert [u["content"]["text"] for u in updates[2:5]] == ["hello ", "big ", "world"]


async def test_their_client_session_cancel_ends_the_work_and_the_held_prompt_gets_32800() -> None:
    """CancelSessionNotification: "cancel a session's foreground work and its prompts not yet
    inserted"."""
    events = await their_v2_client("cancel", "interop_v2_agent")
    assert [e["n"] for e in of(events, "prompt")] == [1]
    [held] = of(events, "error")
    assert (held["n"], held["code"]) == (2, -32800)
    assert [e["stopReason"] for e in of(events, "idle")] == ["cancelled"]
    assert len([u for u in of(events, "update") if u["sessionUpdate"] == "user_message"]) == 1
    last_idle = max(i for i, e in enumerate(events) if e["event"] == "idle")
    assert not [e for e in events[last_idle:] if e["event"] == "update"], "nothing after idle"


async def test_our_agent_cancels_the_permission_request_and_their_client_answers_cancelled() -> (
    None
):
    """session/cancel cancels the work's nested `session/request_permission` with
    `$/cancel_request`; RequestPermissionOutcome: "The client answers a request the agent cancels
    with `$/cancel_request` with this outcome"."""
    events = await their_v2_client("permission_cancel_request", "interop_v2_agent")
    answered = [e for e in of(events, "permission") if "outcome" in e]
    assert answered == [
        {"event": "permission", "outcome": "cancelled", "after_cancel_request": True}
    ]
    assert [e["stopReason"] for e in of(events, "idle")] == ["cancelled"]
    assert "state_update:requires_action" in states(of(events, "update"))


async def test_their_client_session_close_during_work_sees_idle_cancelled_before_the_answer() -> (
    None
):
    """CloseSessionRequest: "the idle `state_update` with `stopReason: "cancelled"` before
    responding successfully to `session/close`"."""
    events = await their_v2_client("close", "interop_v2_agent")
    assert of(events, "close_order") == [{"event": "close_order", "idle_before_close": True}]
    assert [e["stopReason"] for e in of(events, "idle")] == ["cancelled"]


async def test_their_client_patches_meta_by_top_level_key_and_lists_the_session() -> None:
    """SessionInfoUpdate._meta: "a key set to `null` is removed, and any other value replaces that
    key's stored value without merging nested objects"; session/list is advertised under
    `capabilities.session` and answered."""
    events = await their_v2_client("meta", "interop_v2_agent")
    [init] = of(events, "initialize")
    assert init["capabilities"] == {"session": {}}
    assert of(events, "meta") == [{"event": "meta", "value": {"nested": {"b": 2}}}]
    [listed] = of(events, "list")
    [session] = of(events, "session")
    assert [s["sessionId"] for s in listed["sessions"]] == [session["sessionId"]]
    assert listed["sessions"][0]["title"] == "set title"


# -- our v2 client, their v2 agent --------------------------------------------------------------


async def test_our_client_prompts_their_agent_and_waits_until_idle() -> None:
    report = await our_v2_client("prompt")
    assert report["initialize"]["protocolVersion"] == 2
    assert report["idle"] == {"stopReason": "end_turn"}
    updates = report["updates"]
    assert updates[0] == {
        "sessionUpdate": "user_message",
        "messageId": report["messageId"],
        "content": [{"type": "text", "text": "hello big world"}],
    }
    assert states(updates)[-1] == "state_update:idle:end_turn"


async def test_our_client_cancel_ends_their_work_cancelled_and_the_held_prompt_fails_32800() -> (
    None
):
    report = await our_v2_client("cancel")
    assert "result" in report["first"]
    assert report["second"]["error"]["code"] == -32800
    assert report["idle"] == {"stopReason": "cancelled"}


async def test_their_agents_cancel_request_is_answered_with_our_cancelled_outcome() -> None:
    """Our client's permission handler is aborted by their `$/cancel_request`; our SDK answers
    `{"outcome": {"outcome": "cancelled"}}` (the edition's cancel outcome), not -32800."""
    report = await our_v2_client("permission")
    assert report["permission"]["aborted"] == report["permission"]["requests"]
    assert report["answer"]["result"] == {"outcome": {"outcome": "cancelled"}}
    assert report["idle"] == {"stopReason": "cancelled"}


async def test_our_client_close_during_their_work_has_the_idle_update_before_the_answer() -> None:
    report = await our_v2_client("close")
    assert report["close"] == {}
    assert report["idleBeforeClose"] == "cancelled"


async def test_our_client_applies_their_meta_patches_and_lists() -> None:
    report = await our_v2_client("meta")
    assert report["initialize"]["capabilities"] == {"session": {}}
    assert report["info"]["meta"] == {"nested": {"b": 2}}
    assert [s["sessionId"] for s in report["list"]["sessions"]] == [report["sessionId"]]


# -- one agent for v1 and v2 ----------------------------------------------------------------------


async def test_their_v1_client_gets_v1_from_our_dual_agent() -> None:
    report = await run_json_peer(
        node(),
        str(NODE_PEERS / "ts_client.mjs"),
        "prompt",
        node(),
        our_ts_program("interop_dual_agent"),
    )
    assert report["initialize"]["protocolVersion"] == 1
    assert report["initialize"]["agentInfo"]["name"] == "acp-codegen-ts-dual-agent"
    assert report["response"] == {"stopReason": "end_turn"}
    assert [u["content"]["text"] for u in report["updates"]] == ["one ", "two ", "three"]


async def test_their_v2_client_gets_v2_from_our_dual_agent() -> None:
    events = await their_v2_client("prompt", "interop_dual_agent")
    [init] = of(events, "initialize")
    assert (init["protocolVersion"], init["info"]["name"]) == (2, "acp-codegen-ts-dual-agent")
    assert [e["stopReason"] for e in of(events, "idle")] == ["end_turn"]
