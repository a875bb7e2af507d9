"""The peers of the remote-transport tests: the interop agent (tests/interop/our_agent.py), served
over HTTP, and a typed client that records what it sees and holds `fs/read_text_file` until that
request is cancelled (the cascade's nested request)."""

from __future__ import annotations

import asyncio

from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientContext, connect_remote


class RecordingClient(Client):
    def __init__(self) -> None:
        self.updates: list[models.SessionUpdate] = []
        self.update_seen = asyncio.Event()
        self.read_started = asyncio.Event()
        self.read_cancelled = asyncio.Event()

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.updates.append(params.update)
        self.update_seen.set()

    async def fs_read_text_file(
        self, params: models.ReadTextFileRequest, ctx: ClientContext
    ) -> models.ReadTextFileResponse:
        self.read_started.set()
        try:
            await asyncio.Event().wait()  # held until the agent cancels it
        except asyncio.CancelledError:
            self.read_cancelled.set()
            raise
        raise AssertionError("unreachable")

    def texts(self) -> list[str]:
        return [
            u.content.text
            for u in self.updates
            if isinstance(u, models.SessionUpdateAgentMessageChunk)
            and isinstance(u.content, models.ContentBlockText)
        ]


def initialize_request() -> models.InitializeRequest:
    return models.InitializeRequest(protocol_version=1)


def new_session() -> models.NewSessionRequest:
    return models.NewSessionRequest(cwd="/", mcp_servers=[])


def prompt(session_id: str, text: str) -> models.PromptRequest:
    return models.PromptRequest(
        session_id=session_id, prompt=[models.ContentBlockText(type="text", text=text)]
    )


async def stream_prompt(url: str) -> tuple[str, models.PromptResponse, list[str]]:
    """Our typed client at `url`: a session, and a "stream" prompt; (its session id, the answer,
    the texts of the chunks that came)."""
    client = RecordingClient()
    async with connect_remote(client, url) as connection:
        await connection.agent.initialize(initialize_request())
        session_id = (await connection.agent.session_new(new_session())).session_id
        response = await connection.agent.session_prompt(prompt(session_id, "stream"))
    return session_id, response, client.texts()


async def cancel_slow_prompt(url: str) -> models.PromptResponse:
    """Our typed client at `url`: a "slow" prompt, ended with `session/cancel` once its first
    update came; its answer."""
    client = RecordingClient()
    async with connect_remote(client, url) as connection:
        await connection.agent.initialize(initialize_request())
        session_id = (await connection.agent.session_new(new_session())).session_id
        call = asyncio.ensure_future(connection.agent.session_prompt(prompt(session_id, "slow")))
        await asyncio.wait_for(client.update_seen.wait(), 10)
        await connection.agent.session_cancel(models.CancelNotification(session_id=session_id))
        return await asyncio.wait_for(call, 10)
