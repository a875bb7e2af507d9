"""Interop over stdio: our generated Python client (acp_protocol.v1.client.spawn_agent) drives
our Go agent (tests/go/interop/agent, on the generated Go module): a prompt with streamed
updates, `$/cancel_request` (the caller cancelled, and the graceful wait for -32800),
`session/cancel`, the cascade to our nested `fs/read_text_file`, and `session_info_update`
with `title: null` and `_meta: null` arriving as null. The Go agent logs what it saw to
$ACP_INTEROP_EVENTS."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import CancelSignal, RequestCancelled
from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientConnection, ClientContext, spawn_agent

from tests.go.support import go_program
from tests.go.test_interop_go_clients import INFO_UPDATES
from tests.interop.support import read_events
from tests.runtime.support import eventually


class HoldingClient(Client):
    """Records the chunks and session info updates; holds `fs/read_text_file` until cancelled."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.info: list[dict[str, Any]] = []
        self.reads: list[str] = []
        self.cancelled_reads: list[str] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            self.chunks.append(update.content.text)
        if isinstance(update, models.SessionUpdateSessionInfoUpdate):
            self.info.append(update.to_wire())

    async def fs_read_text_file(
        self, params: models.ReadTextFileRequest, ctx: ClientContext
    ) -> models.ReadTextFileResponse:
        self.reads.append(params.path)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled_reads.append(params.path)
            raise
        raise AssertionError("unreachable")


@asynccontextmanager
async def go_agent(
    client: Client, events: Path
) -> AsyncIterator[tuple[ClientConnection, models.NewSessionResponse]]:
    """Our client connected to our Go agent, initialized, with one session."""
    environment = {**os.environ, "ACP_INTEROP_EVENTS": str(events)}
    async with spawn_agent(client, go_program("agent"), env=environment) as connection:
        init = await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
        assert init.protocol_version == 1
        assert (
            init.agent_info is not None and init.agent_info.name == "acp-codegen-go-interop-agent"
        )
        new = models.NewSessionRequest(cwd=str(events.parent), mcp_servers=[])
        yield connection, await connection.agent.session_new(new)


def prompt(session: models.NewSessionResponse, text: str) -> models.PromptRequest:
    content = [models.ContentBlockText(type="text", text=text)]
    return models.PromptRequest(session_id=session.session_id, prompt=content)


async def test_our_python_client_prompts_the_go_agent_and_receives_the_streamed_updates(
    tmp_path: Path,
) -> None:
    client = HoldingClient()
    async with go_agent(client, tmp_path / "events") as (connection, session):
        response = await connection.agent.session_prompt(prompt(session, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.chunks == ["one ", "two ", "three"]


async def test_our_cancelled_python_caller_ends_the_go_agents_prompt_by_cancel_request(
    tmp_path: Path,
) -> None:
    """Cancelling the awaiting task sends `$/cancel_request` for the prompt: the Go handler's
    ctx ends with acp.ErrCancelledByPeer."""
    client = HoldingClient()
    events = tmp_path / "events"
    async with go_agent(client, events) as (connection, session):
        call = asyncio.create_task(connection.agent.session_prompt(prompt(session, "slow")))
        await eventually(lambda: client.chunks, timeout=10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: len(read_events(events)) >= 2, timeout=10)
    assert read_events(events) == [
        {"event": "cancel_request", "requestId": 3},  # initialize 1, session/new 2, prompt 3
        {"event": "prompt_cancelled", "by": "request"},
    ]


async def test_our_graceful_cancel_gets_the_go_agents_32800_with_the_request_id(
    tmp_path: Path,
) -> None:
    client = HoldingClient()
    async with go_agent(client, tmp_path / "events") as (connection, session):
        signal = CancelSignal()
        task = asyncio.create_task(
            connection.agent.session_prompt(prompt(session, "slow"), cancel=signal)
        )
        await eventually(lambda: client.chunks, timeout=10)
        signal.cancel()
        with pytest.raises(RequestCancelled) as raised:
            await asyncio.wait_for(task, 10)
    assert raised.value.code == -32800
    assert raised.value.data == {"requestId": 3}  # initialize 1, session/new 2, prompt 3


async def test_our_session_cancel_ends_the_go_agents_prompt_with_stop_reason_cancelled(
    tmp_path: Path,
) -> None:
    client = HoldingClient()
    events = tmp_path / "events"
    async with go_agent(client, events) as (connection, session):
        task = asyncio.create_task(connection.agent.session_prompt(prompt(session, "slow")))
        await eventually(lambda: client.chunks, timeout=10)
        await connection.agent.session_cancel(
            models.CancelNotification(session_id=session.session_id)
        )
        response = await asyncio.wait_for(task, 10)
    assert response.stop_reason == "cancelled"
    assert read_events(events) == [
        {"event": "session_cancel"},
        {"event": "prompt_cancelled", "by": "session"},
    ]


async def test_our_cancelled_prompt_cascades_through_the_go_agent_to_our_nested_read(
    tmp_path: Path,
) -> None:
    """The Go agent waits on our `fs/read_text_file` with the prompt's ctx when we cancel the
    prompt: the ctx's end sends `$/cancel_request` to us for the nested read, and the prompt is
    answered -32800."""
    client = HoldingClient()
    async with go_agent(client, tmp_path / "events") as (connection, session):
        signal = CancelSignal()
        task = asyncio.create_task(
            connection.agent.session_prompt(prompt(session, "nested"), cancel=signal)
        )
        await eventually(lambda: client.reads, timeout=10)
        signal.cancel()
        with pytest.raises(RequestCancelled):
            await asyncio.wait_for(task, 10)
        await eventually(lambda: client.cancelled_reads, timeout=10)
    assert client.cancelled_reads == ["/interop/held.txt"]


async def test_the_go_agents_session_info_updates_reach_our_python_client_intact(
    tmp_path: Path,
) -> None:
    """`title: null` and `_meta: null` reach our models as null, not as absent, and back."""
    client = HoldingClient()
    async with go_agent(client, tmp_path / "events") as (connection, session):
        response = await connection.agent.session_prompt(prompt(session, "info"))
    assert response.stop_reason == "end_turn"
    assert client.info == INFO_UPDATES
