"""Interop over stdio with coder/acp-go-sdk, the community Go SDK (pinned in tests/go/go.mod and
go.sum, from the Go module proxy): its client (tests/go/interop/coder_client) against our Go
agent, and our Go client (tests/go/interop/client) against its agent
(tests/go/interop/coder_agent): a prompt with streamed updates, `$/cancel_request`, and
`session/cancel`. Both programs are built from tests/go's module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.go.support import go_program
from tests.interop.support import read_events, run_json_peer


async def coder_client(scenario: str, events: Path) -> dict[str, Any]:
    """coder's client running `scenario` against our Go agent, which logs to `events`."""
    return await run_json_peer(
        "env",
        f"ACP_INTEROP_EVENTS={events}",
        go_program("coder_client"),
        scenario,
        go_program("agent"),
    )


async def our_client(scenario: str) -> dict[str, Any]:
    """Our Go client running `scenario` against coder's agent."""
    return await run_json_peer(go_program("client"), scenario, go_program("coder_agent"))


def chunks(updates: list[dict[str, Any]]) -> list[str]:
    return [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]


async def test_coders_client_prompts_our_go_agent_and_receives_the_streamed_updates(
    tmp_path: Path,
) -> None:
    report = await coder_client("prompt", tmp_path / "events")
    assert report["initialize"]["agentInfo"]["name"] == "acp-codegen-go-interop-agent"
    assert report["prompt"] == {"result": {"stopReason": "end_turn"}}
    assert report["chunks"] == ["one ", "two ", "three"]


async def test_coders_cancelled_client_ctx_sends_cancel_request_that_ends_our_go_agents_prompt(
    tmp_path: Path,
) -> None:
    """coder's client, its ctx cancelled, sends `$/cancel_request` for the prompt (id 3:
    initialize 1, session/new 2) and then `session/cancel`; whichever comes first ends our
    agent's prompt, once."""
    events = tmp_path / "events"
    report = await coder_client("cancel_request", events)
    assert report["prompt"]["error"]["code"] == -32800
    assert report["chunks"] == ["working"]
    seen = read_events(events)
    assert {"event": "cancel_request", "requestId": 3} in seen
    assert len([e for e in seen if e["event"] == "prompt_cancelled"]) == 1


async def test_coders_session_cancel_ends_our_go_agents_prompt_with_stop_reason_cancelled(
    tmp_path: Path,
) -> None:
    events = tmp_path / "events"
    report = await coder_client("session_cancel", events)
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}
    assert read_events(events) == [
        {"event": "session_cancel"},
        {"event": "prompt_cancelled", "by": "session"},
    ]


async def test_our_go_client_prompts_coders_agent_and_receives_the_streamed_updates() -> None:
    report = await our_client("prompt")
    assert report["initialize"]["agentInfo"]["name"] == "coder-acp-go-sdk-agent"
    assert report["response"] == {"stopReason": "end_turn"}
    assert chunks(report["updates"]) == ["one ", "two ", "three"]
    assert report["problems"] == []


async def test_our_go_clients_cancel_request_is_answered_32800_by_coders_agent() -> None:
    """Our cancelled Graceful ctx sends `$/cancel_request` and waits: coder's agent answers
    -32800 (its `data` is its own: `{"error": "context canceled"}`, no request id)."""
    report = await our_client("cancel_request")
    assert report["prompt"]["error"]["code"] == -32800
    assert chunks(report["updates"]) == ["working"]


async def test_our_go_clients_session_cancel_ends_coders_agents_prompt_cancelled() -> None:
    report = await our_client("session_cancel")
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}
