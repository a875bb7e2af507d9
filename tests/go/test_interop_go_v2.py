"""ACP v2 over stdio: the official TypeScript SDK 2.4.0's v2 client (`experimental/v2`,
tests/interop/node/ts_v2_client.mjs) against our Go v2 agent (tests/go/interop/v2agent: only the
foreground work is the agent's; negotiation, insertion, state updates, held prompts, cancel,
close and the permission outcome are the generated layer's and the runtime's, from
`v2.Behaviour`). The same scenarios drive our TypeScript v2 agent
(tests/interop/test_interop_v2_typescript.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.generator.test_advertised_served import Peer, check
from tests.go.support import go_program
from tests.interop.support import of, run_their_v2_client, states


async def their_v2_client(scenario: str) -> list[dict[str, Any]]:
    return await run_their_v2_client(scenario, go_program("v2agent"))


async def test_their_client_gets_a_message_id_at_insertion_then_running_chunks_idle_end_turn() -> (
    None
):
    """PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
    conversation"; StateUpdate: "the agent MUST report `running` when foreground work starts … and
    `idle` when it ends"."""
    events = await their_v2_client("prompt")
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
    assert updates[0]["content"] == [{"type": "text", "text": "hello big world"}]
    assert [u["content"]["text"] for u in updates[2:5]] == ["hello ", "big ", "world"]
    kinds = [e["event"] for e in events]
    assert kinds.index("prompt") < kinds.index(
        "update", kinds.index("prompt")
    ), "the work's updates follow the prompt's answer"


async def test_their_client_session_cancel_ends_the_work_and_the_held_prompt_gets_32800() -> None:
    """CancelSessionNotification: "cancel a session's foreground work and its prompts not yet
    inserted"."""
    events = await their_v2_client("cancel")
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
    `$/cancel_request` (the work's ctx); StateUpdate: "The agent SHOULD report
    `requires_action` when the foreground workflow as a whole cannot progress without user
    action"."""
    events = await their_v2_client("permission_cancel_request")
    answered = [e for e in of(events, "permission") if "outcome" in e]
    assert answered == [
        {"event": "permission", "outcome": "cancelled", "after_cancel_request": True}
    ]
    assert [e["stopReason"] for e in of(events, "idle")] == ["cancelled"]
    assert states(of(events, "update"))[:3] == [
        "user_message",
        "state_update:running",
        "state_update:requires_action",
    ]


async def test_their_client_session_close_during_work_sees_idle_cancelled_before_the_answer() -> (
    None
):
    """CloseSessionRequest: "the idle `state_update` with `stopReason: "cancelled"` before
    responding successfully to `session/close`"."""
    events = await their_v2_client("close")
    assert of(events, "close_order") == [{"event": "close_order", "idle_before_close": True}]
    assert [e["stopReason"] for e in of(events, "idle")] == ["cancelled"]


async def test_their_client_patches_meta_by_top_level_key_and_lists_the_session() -> None:
    """SessionInfoUpdate._meta: "a key set to `null` is removed, and any other value replaces that
    key's stored value without merging nested objects" (the agent applies it with
    `acp.ApplySessionInfoUpdate` under `v2.Behaviour`'s policy); session/list answers it."""
    events = await their_v2_client("meta")
    [init] = of(events, "initialize")
    assert init["capabilities"] == {"session": {}}
    assert of(events, "meta") == [{"event": "meta", "value": {"nested": {"b": 2}}}]
    [listed] = of(events, "list")
    [session] = of(events, "session")
    assert [s["sessionId"] for s in listed["sessions"]] == [session["sessionId"]]
    assert listed["sessions"][0]["title"] == "set title"


def test_the_go_v2_agent_serves_what_it_advertises_session_resume_included(tmp_path: Path) -> None:
    """Advertised ⇔ served (tests/generator/test_advertised_served.py): the agent advertises
    `capabilities.session`, whose baseline includes session/resume; each of its methods answers
    (none -32601). A resumed session gets its current state before the answer ("The agent MUST
    send a current `state_update` ... before this response"); an unknown one -32002."""
    agent = [go_program("v2agent")]
    assert check("v2", agent, tmp_path)[("capabilities", "session")] is True
    peer = Peer(agent, tmp_path)
    try:
        peer.call("initialize", {"protocolVersion": 2, "info": {"name": "test", "version": "0"}})
        new = peer.call("session/new", {"cwd": str(tmp_path)})["result"]
        assert peer.process.stdin is not None and peer.process.stdout is not None
        resume = {"sessionId": new["sessionId"], "cwd": str(tmp_path)}
        request = {"jsonrpc": "2.0", "id": 99, "method": "session/resume", "params": resume}
        peer.process.stdin.write(json.dumps(request) + "\n")
        peer.process.stdin.flush()
        first, answer = (json.loads(peer.process.stdout.readline()) for _ in range(2))
        assert first["method"] == "session/update"
        assert first["params"]["update"]["sessionUpdate"] == "state_update"
        assert first["params"]["update"]["state"] == "idle"
        assert answer == {"jsonrpc": "2.0", "id": 99, "result": {}}
        unknown = peer.call("session/resume", {"sessionId": "nope", "cwd": str(tmp_path)})
        assert unknown["error"]["code"] == -32002
    finally:
        peer.close()
