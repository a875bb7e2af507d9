"""End to end against the official ACP Python SDK (`agent-client-protocol` 0.12.1), both
directions over real stdio subprocesses: their client ↔ our agent, our client ↔ their agent."""

from __future__ import annotations

import sys

from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientContext, spawn_agent

from tests.interop.support import INTEROP, OUR_AGENT, run_json_peer


async def test_official_python_client_prompts_our_agent_and_receives_the_streamed_updates() -> None:
    report = await run_json_peer(sys.executable, str(INTEROP / "official_client.py"), *OUR_AGENT)
    assert report["protocolVersion"] == 1
    assert report["response"] == {"stopReason": "end_turn"}
    texts = [u["content"]["text"] for u in report["updates"]]
    assert texts == ["one ", "two ", "three"]
    assert {u["sessionUpdate"] for u in report["updates"]} == {"agent_message_chunk"}


async def test_our_client_prompts_the_official_python_agent_and_receives_the_updates() -> None:
    received: list[dict[str, object]] = []

    class Recording(Client):
        async def session_update(
            self, params: models.SessionNotification, ctx: ClientContext
        ) -> None:
            received.append(params.update.to_wire())

    program = str(INTEROP / "official_agent.py")
    async with spawn_agent(Recording(), sys.executable, program) as connection:
        init = await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
        new = models.NewSessionRequest(cwd="/", mcp_servers=[])
        session = await connection.agent.session_new(new)
        content = [models.ContentBlockText(type="text", text="stream")]
        request = models.PromptRequest(session_id=session.session_id, prompt=content)
        response = await connection.agent.session_prompt(request)
    assert init.protocol_version == 1
    assert session.session_id == "official-1"
    assert response.stop_reason == "end_turn"
    assert received == [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        for text in ("one ", "two ", "three")
    ]
