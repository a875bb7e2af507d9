"""Our TypeScript client (`connectRemoteAgent`, tests/typescript/interop_client.ts given a URL) over
real loopback HTTP and WebSocket against three servers: our Python server (`http_app`), our
TypeScript server (`listenAgent`) and the official TypeScript SDK 2.4.0's `AcpServer` through its
node adapter (tests/interop/node/ts_agent.mjs --listen); and our Python client (`connect_remote`)
against that official server. The same scenarios as over stdio: a prompt's streamed updates,
`$/cancel_request` → -32800, `session/cancel` → `cancelled`, the cascade to a nested request and
`session_info_update` with `title: null` (the last two need our interop agent's prompts)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from acp_protocol.v1.agent import http_app

from tests.interop.our_agent import InteropAgent
from tests.interop.support import NODE_PEERS, node, our_ts_program, run_json_peer
from tests.remote.agents import cancel_slow_prompt, stream_prompt
from tests.remote.support import listening, serving

pytestmark = pytest.mark.parametrize("scheme", ["http", "ws"])


@contextlib.asynccontextmanager
async def _serve(server: str, scheme: str) -> AsyncIterator[str]:
    if server == "python":
        async with serving(http_app(InteropAgent)) as base:
            yield base.replace("http", scheme, 1) + "/acp"
        return
    program = (
        our_ts_program("interop_agent")
        if server == "typescript"
        else str(NODE_PEERS / "ts_agent.mjs")
    )
    async with listening(node(), program, "--listen") as endpoint:
        yield endpoint.replace("http", scheme, 1)


@pytest.fixture(params=["python", "typescript", "official"])
async def url(request: pytest.FixtureRequest, scheme: str) -> AsyncIterator[str]:
    async with _serve(request.param, scheme) as endpoint:
        yield endpoint


@pytest.fixture(params=["python", "typescript"])
async def our_url(request: pytest.FixtureRequest, scheme: str) -> AsyncIterator[str]:
    """Our servers only: the official agent of tests/interop/node makes no nested request and
    sends no session_info_update."""
    async with _serve(request.param, scheme) as endpoint:
        yield endpoint


@pytest.fixture
async def official_url(scheme: str) -> AsyncIterator[str]:
    async with _serve("official", scheme) as endpoint:
        yield endpoint


async def _run(scenario: str, url: str) -> dict[str, Any]:
    return await run_json_peer(node(), our_ts_program("interop_client"), scenario, url)


def _texts(report: dict[str, Any]) -> list[str]:
    return [u["content"]["text"] for u in report["updates"] if "content" in u]


async def test_our_ts_client_gets_a_prompts_streamed_updates(url: str) -> None:
    report = await _run("prompt", url)
    assert report["response"] == {"stopReason": "end_turn"}
    assert _texts(report) == ["one ", "two ", "three"]


async def test_our_ts_clients_cancel_request_is_answered_minus_32800(url: str) -> None:
    report = await _run("cancel_request", url)
    assert report["prompt"]["error"]["code"] == -32800
    assert _texts(report) == ["working"]


async def test_our_ts_clients_session_cancel_ends_the_prompt_cancelled(url: str) -> None:
    report = await _run("session_cancel", url)
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}


async def test_our_ts_clients_cancel_cascades_to_the_nested_request(our_url: str) -> None:
    report = await _run("cascade", our_url)
    assert report["prompt"]["error"]["code"] == -32800
    assert report["fsRequests"] == report["fsAborted"] == report["cancelRequests"]
    assert len(report["fsRequests"]) == 1


async def test_our_ts_client_keeps_a_null_title(our_url: str) -> None:
    report = await _run("session_info", our_url)
    titles = [u.get("title", "absent") for u in report["updates"]]
    assert titles == ["Interop title", None, "absent"]
    assert report["updates"][2]["_meta"] is None


async def test_our_python_client_streams_from_the_official_ts_server(official_url: str) -> None:
    _, response, texts = await stream_prompt(official_url)
    assert response.stop_reason == "end_turn"
    assert texts == ["one ", "two ", "three"]


async def test_our_python_client_cancels_on_the_official_ts_server(official_url: str) -> None:
    response = await cancel_slow_prompt(official_url)
    assert response.stop_reason == "cancelled"
