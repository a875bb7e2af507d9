"""What the typed-layer tests share: a generated base's subclass served over a memory pair, talked
to as a raw JSON-RPC peer (so what is asserted is exactly what another implementation receives)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from acp_protocol.runtime import memory_pair
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext, connect_agent
from acp_protocol.v1.client import Client, connect_client
from acp_protocol.v1.unstable import agent as unstable_agent

from tests.runtime.support import RawPeer

SESSION = "s-1"
PROMPT = {"sessionId": SESSION, "prompt": [{"type": "text", "text": "hi"}]}


@asynccontextmanager
async def serving_agent(agent: Agent | unstable_agent.Agent) -> AsyncIterator[RawPeer]:
    ours, theirs = memory_pair()
    connect = connect_agent if isinstance(agent, Agent) else unstable_agent.connect_agent
    async with connect(agent, ours):  # type: ignore[arg-type]
        yield RawPeer(theirs)


@asynccontextmanager
async def serving_client(client: Client) -> AsyncIterator[tuple[RawPeer, Any]]:
    ours, theirs = memory_pair()
    async with connect_client(client, ours) as connection:
        yield RawPeer(theirs), connection


def text_chunk(text: str) -> models.SessionNotification:
    content = models.ContentBlockText(type="text", text=text)
    update = models.SessionUpdateAgentMessageChunk(
        session_update="agent_message_chunk", content=content
    )
    return models.SessionNotification(session_id=SESSION, update=update)


class NestedReadAgent(Agent):
    """A prompt that streams one chunk, then waits on a nested `fs/read_text_file`."""

    def __init__(self) -> None:
        self.contexts: list[AgentContext] = []

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        self.contexts.append(ctx)
        await ctx.client.session_update(text_chunk("working"))
        read = models.ReadTextFileRequest(session_id=params.session_id, path="/held")
        await ctx.client.fs_read_text_file(read)
        return models.PromptResponse(stop_reason="end_turn")
