"""Production agents nobody here wrote, `@zed-industries/codex-acp` and
`@zed-industries/claude-agent-acp` (tests/interop/production), served over HTTP by `bridge serve`,
answer the official TypeScript SDK 2.4.0's `experimental/http-client` and
`experimental/ws-client`: their `initialize` with their auth methods and capabilities.
Offline, with the environment of tests/interop/test_interop_production.py (no key, proxies on a
closed loopback port); no prompt is sent, and nothing of its process group survives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.interop.support import NODE_PEERS, node
from tests.interop.test_interop_production import CLAUDE, CODEX
from tests.interop.test_interop_production import agent_env as agent_env  # the fixture
from tests.remote.test_bridge import bridge_serving
from tests.remote.test_remote_typescript import _websocket_flags

INITIALIZE_ONLY = """
import * as acp from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
const url = process.argv[1];
const stream = url.startsWith("ws")
  ? createWebSocketStream(url, { WebSocket: globalThis.WebSocket })
  : createHttpStream(url);
const report = await acp.client({ name: "ts-bridge-probe" }).connectWith(stream, (agent) =>
  agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION }),
);
process.stdout.write(JSON.stringify(report) + "\\n");
process.exit(0);
"""
"""The official client's `initialize`, and nothing else (run from tests/interop/node, where the
SDK is installed)."""


async def _initialize(url: str) -> dict[str, Any]:
    import asyncio

    program = node()
    process = await asyncio.create_subprocess_exec(
        program,
        *_websocket_flags(program),
        "--input-type=module",
        "--eval",
        INITIALIZE_ONLY,
        url,
        cwd=NODE_PEERS,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode(errors="replace")
    report: dict[str, Any] = json.loads(stdout.decode().strip().splitlines()[-1])
    return report


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_codex_served_by_the_bridge_answers_the_official_remote_client(
    agent_env: dict[str, str], scheme: str
) -> None:
    async with bridge_serving(CODEX, env=agent_env) as bridge:
        report = await _initialize(bridge.url.replace("http", scheme, 1))
        (pid,) = await bridge.agent_pids(1)
    methods = {method["id"]: method for method in report["authMethods"]}
    assert report["protocolVersion"] == 1
    assert set(methods) >= {"chatgpt", "codex-api-key", "openai-api-key"}
    assert methods["codex-api-key"]["vars"] == [{"name": "CODEX_API_KEY"}]
    assert pid > 0  # and agent_env checks that nothing of its group outlived the bridge


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_claude_agent_served_by_the_bridge_answers_the_official_remote_client(
    agent_env: dict[str, str], scheme: str
) -> None:
    async with bridge_serving(CLAUDE, env=agent_env) as bridge:
        report = await _initialize(bridge.url.replace("http", scheme, 1))
        (pid,) = await bridge.agent_pids(1)
    # claude-agent-acp 0.23.1 offers no auth method to a client that declares no terminal
    # capability; its session capabilities say what it can do over the bridge.
    assert report["protocolVersion"] == 1
    assert report["agentInfo"] == {
        "name": "@zed-industries/claude-agent-acp",
        "title": "Claude Agent",
        "version": "0.23.1",
    }
    assert report["authMethods"] == []
    assert set(report["agentCapabilities"]["sessionCapabilities"]) >= {"list", "close"}
    assert pid > 0  # and agent_env checks that nothing of its group outlived the bridge
