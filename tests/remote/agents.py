"""The peers of the remote-transport tests: the interop agent (tests/interop/our_agent.py), served
over HTTP, and a typed client that records what it sees and holds `fs/read_text_file` until that
request is cancelled (the cascade's nested request)."""

from __future__ import annotations

import asyncio

from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientContext


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
