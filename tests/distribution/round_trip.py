"""An in-memory agent <-> client round trip through the installed `acp_protocol`, using nothing
of this checkout: run by tests/distribution/ under a fresh venv holding only the built wheel.
Prints `ok <python> <pydantic>` and exits 0, or fails with a traceback."""

from __future__ import annotations

import asyncio
import platform

import pydantic
from acp_protocol.runtime import memory_pair
from acp_protocol.v1 import PROTOCOL_VERSION, helpers, models
from acp_protocol.v1.agent import Agent, AgentContext, connect_agent
from acp_protocol.v1.client import Client, ClientContext, connect_client


class EchoAgent(Agent):
    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id="s-1")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        for block in params.prompt:
            chunk = helpers.agent_message_chunk(getattr(block, "text", "").upper())
            await ctx.client.session_update(
                models.SessionNotification(session_id=params.session_id, update=chunk)
            )
        return models.PromptResponse(stop_reason="end_turn")


class Collector(Client):
    def __init__(self) -> None:
        self.updates: list[models.SessionNotification] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.updates.append(params)


async def main() -> None:
    agent_side, client_side = memory_pair()
    collector = Collector()
    async with (
        connect_agent(EchoAgent(), agent_side),
        connect_client(collector, client_side) as client,
    ):
        init = await client.peer.initialize(
            models.InitializeRequest(protocol_version=PROTOCOL_VERSION)
        )
        assert init.protocol_version == PROTOCOL_VERSION
        session = await client.peer.session_new(models.NewSessionRequest(cwd="/", mcp_servers=[]))
        prompt = [models.ContentBlockText(text="hello")]
        done = await client.peer.session_prompt(
            models.PromptRequest(session_id=session.session_id, prompt=prompt)
        )
        assert done.stop_reason == "end_turn", done
    [update] = collector.updates
    assert update.update.content.text == "HELLO", update  # type: ignore[union-attr]
    print("ok", platform.python_version(), pydantic.VERSION)


if __name__ == "__main__":
    asyncio.run(main())
