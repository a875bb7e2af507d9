"""Our typed client and our agent over ACP's remote transport, on real loopback HTTP (uvicorn):
Streamable HTTP (POST + SSE streams) and WebSocket, with the same API and the same cancellation
as over stdio, because the connection above the transport is the same."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from acp_protocol.runtime import CancelSignal, RequestCancelled, RequestOptions
from acp_protocol.v1 import models
from acp_protocol.v1.agent import http_app
from acp_protocol.v1.client import ClientConnection, connect_remote

from tests.interop.our_agent import InteropAgent
from tests.remote.agents import RecordingClient, initialize_request, new_session, prompt
from tests.remote.support import serving

pytestmark = pytest.mark.parametrize("scheme", ["http", "ws"])


async def _session(connection: ClientConnection) -> str:
    await connection.agent.initialize(initialize_request())
    return (await connection.agent.session_new(new_session())).session_id


@pytest.fixture
async def url(scheme: str) -> AsyncIterator[str]:
    async with serving(http_app(InteropAgent)) as base:
        yield base.replace("http", scheme, 1) + "/acp"


async def test_a_prompt_streams_its_updates_before_its_answer(url: str) -> None:
    client = RecordingClient()
    async with connect_remote(client, url) as connection:
        session_id = await _session(connection)
        response = await connection.agent.session_prompt(prompt(session_id, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.texts() == ["one ", "two ", "three"]


async def test_cancel_request_answers_the_prompt_minus_32800(url: str) -> None:
    client = RecordingClient()
    async with connect_remote(client, url) as connection:
        session_id = await _session(connection)
        signal = CancelSignal()
        params = prompt(session_id, "slow").to_wire()
        call = asyncio.ensure_future(
            connection.connection.request("session/prompt", params, RequestOptions(cancel=signal))
        )
        await asyncio.wait_for(client.update_seen.wait(), 10)
        signal.cancel()
        with pytest.raises(RequestCancelled) as raised:
            await asyncio.wait_for(call, 10)
    assert raised.value.code == -32800


async def test_session_cancel_ends_the_prompt_cancelled(url: str) -> None:
    client = RecordingClient()
    async with connect_remote(client, url) as connection:
        session_id = await _session(connection)
        call = asyncio.ensure_future(connection.agent.session_prompt(prompt(session_id, "slow")))
        await asyncio.wait_for(client.update_seen.wait(), 10)
        await connection.agent.session_cancel(models.CancelNotification(session_id=session_id))
        response = await asyncio.wait_for(call, 10)
    assert response.stop_reason == "cancelled"


async def test_cancelling_a_prompt_cascades_to_its_nested_request(url: str) -> None:
    client = RecordingClient()
    async with connect_remote(client, url) as connection:
        session_id = await _session(connection)
        signal = CancelSignal()
        params = prompt(session_id, "nested").to_wire()
        call = asyncio.ensure_future(
            connection.connection.request("session/prompt", params, RequestOptions(cancel=signal))
        )
        await asyncio.wait_for(client.read_started.wait(), 10)
        signal.cancel()
        with pytest.raises(RequestCancelled) as raised:
            await asyncio.wait_for(call, 10)
        await asyncio.wait_for(client.read_cancelled.wait(), 10)
    assert raised.value.code == -32800
