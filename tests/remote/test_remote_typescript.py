"""The official TypeScript SDK 2.4.0's own remote transports against our Python server and our
TypeScript server, on real loopback HTTP: `experimental/http-client` (Streamable HTTP) and
`experimental/ws-client` (WebSocket), one scenario each (tests/interop/node/ts_remote_client.mjs).
Our TypeScript server is tests/typescript/interop_agent.ts with `--listen` (`listenAgent`)."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from typing import Any

import pytest
from acp_protocol.v1.agent import http_app

from tests.interop.our_agent import InteropAgent
from tests.interop.support import NODE_PEERS, node, our_ts_program, run_json_peer
from tests.remote.support import listening, serving

pytestmark = [
    pytest.mark.parametrize("scheme", ["http", "ws"]),
    pytest.mark.parametrize("server", ["python", "typescript"]),
]


def _websocket_flags(program: str) -> list[str]:
    """node 20 has `WebSocket` behind a flag (from 22 on it is global)."""
    version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
    return ["--experimental-websocket"] if int(version.lstrip("v").split(".")[0]) < 22 else []


@pytest.fixture
async def url(scheme: str, server: str) -> AsyncIterator[str]:
    if server == "python":
        async with serving(http_app(InteropAgent)) as base:
            yield base.replace("http", scheme, 1) + "/acp"
    else:
        async with listening(node(), our_ts_program("interop_agent"), "--listen") as endpoint:
            yield endpoint.replace("http", scheme, 1)


async def _run(scenario: str, url: str) -> dict[str, Any]:
    program = node()
    peer = str(NODE_PEERS / "ts_remote_client.mjs")
    return await run_json_peer(program, *_websocket_flags(program), peer, scenario, url)


def _texts(report: dict[str, Any]) -> list[str]:
    return [u["content"]["text"] for u in report["updates"] if "content" in u]


async def test_the_official_client_prompts_with_streamed_updates(url: str) -> None:
    report = await _run("prompt", url)
    assert report["initialize"]["protocolVersion"] == 1
    assert report["prompt"] == {"result": {"stopReason": "end_turn"}}
    assert _texts(report) == ["one ", "two ", "three"]


async def test_the_official_clients_cancel_request_is_answered_minus_32800(url: str) -> None:
    report = await _run("cancel_request", url)
    assert report["prompt"]["error"]["code"] == -32800
    assert _texts(report) == ["working"]


async def test_the_official_clients_session_cancel_ends_the_prompt_cancelled(url: str) -> None:
    report = await _run("session_cancel", url)
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}


async def test_the_official_clients_cancel_cascades_to_the_nested_request(url: str) -> None:
    report = await _run("cascade", url)
    assert report["prompt"]["error"]["code"] == -32800
    assert report["fsRequests"] == report["fsAborted"]  # the one nested request, by its id
    assert len(report["fsRequests"]) == 1


async def test_a_session_info_update_keeps_its_null_title(url: str) -> None:
    report = await _run("session_info", url)
    titles = [u.get("title", "absent") for u in report["updates"]]
    assert titles == ["Interop title", None, "absent"]
