"""What the wrappers run doc fragments with: for the transports page a working v1 agent
(`MyAgent`), a client that keeps its updates (`MyClient`) and an ASGI app served by uvicorn on a
free loopback port for as long as a block needs it; for the typed-layer page a v2 session with the
v2 starter agent."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from acp_protocol.v1 import helpers, models
from acp_protocol.v1.agent import Agent, AgentContext
from acp_protocol.v1.client import Client, ClientConnection, ClientContext

REPLY = "served over HTTP"


class MyAgent(Agent):
    """Answers every prompt with one chunk, `REPLY`."""

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(protocol_version=1)

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=str(uuid.uuid4()))

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        chunk = helpers.agent_message_chunk(REPLY)
        await ctx.client.session_update(
            models.SessionNotification(session_id=params.session_id, update=chunk)
        )
        return models.PromptResponse(stop_reason="end_turn")


class MyClient(Client):
    """Keeps the text of every agent message chunk it gets."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            self.texts.append(update.content.text)


@asynccontextmanager
async def served(app: Any) -> AsyncIterator[str]:
    """The app at `http://127.0.0.1:PORT/acp` until the block ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            serving.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/acp"
    finally:
        server.should_exit = True
        await serving


async def prompt_once(conn: ClientConnection, client: MyClient) -> None:
    """A session and one prompt on a connection whose `initialize` was answered: the reply
    arrives."""
    session = await conn.agent.session_new(
        models.NewSessionRequest(cwd=os.getcwd(), mcp_servers=[])
    )
    request = models.PromptRequest(session_id=session.session_id, prompt=[helpers.text_block("hi")])
    answer = await conn.agent.session_prompt(request)
    assert answer.stop_reason == "end_turn", answer
    assert client.texts == [REPLY], client.texts


@asynccontextmanager
async def v2_starter_session() -> AsyncIterator[tuple[Any, str]]:
    """A v2 client's connection to the v2 starter agent after `initialize`, and a session the
    agent created (the typed-layer page's fragments run inside it)."""
    from acp_protocol.v2 import models as v2
    from acp_protocol.v2.client import Client as V2Client
    from acp_protocol.v2.client import spawn_agent

    from acp_codegen.cli import main as acp_codegen

    with tempfile.TemporaryDirectory() as folder:
        agent = os.path.join(folder, "agent.py")
        assert acp_codegen(["scaffold", "agent", "--protocol", "v2", "--out", agent]) == 0
        async with spawn_agent(V2Client(), sys.executable, agent) as connection:
            info = v2.Implementation(name="docs", version="0")
            await connection.agent.initialize(v2.InitializeRequest(protocol_version=2, info=info))
            new = v2.NewSessionRequest(cwd=os.getcwd())
            yield connection, (await connection.agent.session_new(new)).session_id
