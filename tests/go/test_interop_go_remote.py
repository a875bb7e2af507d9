"""Interop over ACP's remote transport (WebSocket, loopback): our Go agent served by the Go
runtime's server (`v1.ServeRemoteAgent`; tests/go/interop/agent --listen) to our TypeScript
client (`connectRemoteAgent`, tests/typescript/interop_client.ts) and our Python client
(`connect_remote`). The scenarios of tests/remote/test_remote_our_ts_client.py: a whole turn
(session/new, a prompt with its streamed updates), `$/cancel_request` → -32800,
`session/cancel` → `cancelled`, the cascade to a nested request, `session_info_update` with
`title: null`. Our Go client against the same server: tests/go/ws_serve_typed_test.go."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.go.support import go_program
from tests.interop.support import node, our_ts_program, run_json_peer
from tests.remote.agents import cancel_slow_prompt, stream_prompt
from tests.remote.support import listening


@pytest.fixture
async def url() -> AsyncIterator[str]:
    """ws://…/acp of our Go agent, served while the test runs."""
    async with listening(go_program("agent"), "--listen") as endpoint:
        yield endpoint.replace("http", "ws", 1)


async def _ts_client(scenario: str, url: str) -> dict[str, Any]:
    return await run_json_peer(node(), our_ts_program("interop_client"), scenario, url)


def _texts(report: dict[str, Any]) -> list[str]:
    return [u["content"]["text"] for u in report["updates"] if "content" in u]


async def test_our_ts_client_has_a_whole_turn_with_our_go_server(url: str) -> None:
    report = await _ts_client("prompt", url)
    assert report["response"] == {"stopReason": "end_turn"}
    assert _texts(report) == ["one ", "two ", "three"]


async def test_our_ts_clients_cancel_request_is_answered_minus_32800_by_our_go_server(
    url: str,
) -> None:
    report = await _ts_client("cancel_request", url)
    assert report["prompt"]["error"]["code"] == -32800
    assert _texts(report) == ["working"]


async def test_our_ts_clients_session_cancel_ends_the_go_servers_turn_cancelled(url: str) -> None:
    report = await _ts_client("session_cancel", url)
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}


async def test_our_ts_clients_cancel_cascades_to_the_go_servers_nested_request(url: str) -> None:
    report = await _ts_client("cascade", url)
    assert report["prompt"]["error"]["code"] == -32800
    assert report["fsRequests"] == report["fsAborted"] == report["cancelRequests"]
    assert len(report["fsRequests"]) == 1


async def test_our_ts_client_keeps_the_go_servers_null_title(url: str) -> None:
    report = await _ts_client("session_info", url)
    titles = [u.get("title", "absent") for u in report["updates"]]
    assert titles == ["Interop title", None, "absent"]
    assert report["updates"][2]["_meta"] is None


async def test_our_python_client_has_a_whole_turn_with_our_go_server(url: str) -> None:
    session_id, response, texts = await stream_prompt(url)
    assert session_id.startswith("go-")
    assert response.stop_reason == "end_turn"
    assert texts == ["one ", "two ", "three"]


async def test_our_python_clients_session_cancel_ends_the_go_servers_turn(url: str) -> None:
    response = await cancel_slow_prompt(url)
    assert response.stop_reason == "cancelled"
