"""Interop over stdio, a client program against an agent program, each scenario of
tests/interop/node/ts_client.mjs (the client spawns the agent and prints one JSON report):

- the official TypeScript SDK's client (@agentclientprotocol/sdk) against our Go agent;
- our Go client (tests/go/interop/client, on the generated module: it spawns its agent with
  acp.Spawn) against our Python agent (tests/interop/our_agent.py) and against our Go agent.

Our Go agent (tests/go/interop/agent) behaves like our Python agent: the prompt's text picks
the work ("stream", "slow", "nested", "info").
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.go.support import go_program
from tests.interop.support import NODE_PEERS, OUR_AGENT, node, run_json_peer

GO_AGENT_NAME = "acp-codegen-go-interop-agent"
PY_AGENT_NAME = "acp-codegen-interop-agent"
INFO_UPDATES = [
    {
        "sessionUpdate": "session_info_update",
        "title": "Interop title",
        "_meta": {"trace": {"step": 1, "tags": ["a", "b"]}},
    },
    {"sessionUpdate": "session_info_update", "title": None},
    {"sessionUpdate": "session_info_update", "updatedAt": "2026-11-21T12:00:00Z", "_meta": None},
]
"""What the "info" prompt sends: a title with `_meta`, a cleared title, a cleared `_meta`."""
PAIRS = (
    "their-ts-client/our-go-agent",
    "our-go-client/our-python-agent",
    "our-go-client/our-go-agent",
)
PROMPT_ID = {"their-ts-client": 2, "our-go-client": 3}
"""The id of the first session/prompt: the TS SDK counts from 0, our Go runtime from 1."""


@pytest.fixture(params=PAIRS)
def pair(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def run_pair(pair: str, scenario: str) -> dict[str, Any]:
    """Run the pair's client with `scenario` against its agent; its JSON report."""
    client_side, agent_side = pair.split("/")
    if client_side == "their-ts-client":
        client = [node(), str(NODE_PEERS / "ts_client.mjs")]
    else:
        client = [go_program("client")]
    agent = [go_program("agent")] if agent_side == "our-go-agent" else list(OUR_AGENT)
    return await run_json_peer(*client, scenario, *agent)


def agent_name(pair: str) -> str:
    return GO_AGENT_NAME if pair.endswith("our-go-agent") else PY_AGENT_NAME


def chunks(updates: list[dict[str, Any]]) -> list[str]:
    return [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]


async def test_a_prompt_streams_its_updates_before_its_answer(pair: str) -> None:
    report = await run_pair(pair, "prompt")
    assert report["initialize"]["protocolVersion"] == 1
    assert report["initialize"]["agentInfo"]["name"] == agent_name(pair)
    assert report["response"] == {"stopReason": "end_turn"}
    assert chunks(report["updates"]) == ["one ", "two ", "three"]


async def test_cancel_request_on_a_slow_prompt_is_answered_32800_with_its_id(pair: str) -> None:
    """The client cancels its prompt (an aborted signal; a cancelled Graceful ctx in Go):
    `$/cancel_request`, and the agent answers -32800 with the request id in `data`."""
    report = await run_pair(pair, "cancel_request")
    error = report["prompt"]["error"]
    assert error["code"] == -32800
    assert error["data"] == {"requestId": PROMPT_ID[pair.split("/")[0]]}
    assert chunks(report["updates"]) == ["working"]


async def test_session_cancel_mid_prompt_ends_it_with_stop_reason_cancelled(pair: str) -> None:
    report = await run_pair(pair, "session_cancel")
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}


async def test_cancelling_a_prompt_cascades_to_the_nested_read_text_file(pair: str) -> None:
    """The agent waits on `fs/read_text_file` when the client cancels the prompt: the client
    receives `$/cancel_request` for that nested request, its handler ends, and the prompt is
    answered -32800."""
    report = await run_pair(pair, "cascade")
    [nested_id] = report["fsRequests"]
    assert report["cancelRequests"] == [nested_id]
    assert report["fsAborted"] == [nested_id]
    assert report["prompt"]["error"]["code"] == -32800


async def test_cancels_of_finished_and_unknown_requests_are_ignored(pair: str) -> None:
    report = await run_pair(pair, "stale_cancels")
    assert report["first"] == report["second"] == {"stopReason": "end_turn"}
    assert chunks(report["updates"]) == ["one ", "two ", "three"] * 2
    assert report.get("problems", []) == []


async def test_session_info_updates_arrive_with_null_title_and_meta_as_null(pair: str) -> None:
    """Absent, null and a value stay three different things on both sides."""
    report = await run_pair(pair, "session_info")
    info = [u for u in report["updates"] if u["sessionUpdate"] == "session_info_update"]
    assert info == INFO_UPDATES


async def test_our_go_clients_session_view_applies_the_info_updates_in_order() -> None:
    """acp.ApplySessionInfoUpdate with v1's policy: the title set then cleared, the timestamp
    set, `_meta` set then cleared."""
    for pair in ("our-go-client/our-python-agent", "our-go-client/our-go-agent"):
        report = await run_pair(pair, "session_info")
        expected = {"title": None, "updatedAt": "2026-11-21T12:00:00Z", "_meta": None}
        assert report["sessionInfo"] == expected, pair
