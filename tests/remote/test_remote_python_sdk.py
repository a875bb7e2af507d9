"""The official ACP Python SDK's remote transport (`agent-client-protocol` 0.12.1, `acp.http`,
`acp.ws`) against ours, both ways, on real loopback HTTP (uvicorn): our typed client against its
ASGI app (`create_asgi_app`), and its `create_http_stream` / `create_websocket_stream` clients
against our ASGI app (`http_app`). A prompt streams its updates before its answer, and
`session/cancel` ends a slow prompt `cancelled`, over Streamable HTTP and over WebSocket.

Where the official SDK departs from the RFD, and how each side copes, is in docs/transports.md
("The official Python SDK")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from acp import connect_to_agent, text_block, update_agent_message
from acp.http import create_http_stream
from acp.http.asgi import create_asgi_app
from acp.schema import InitializeResponse, NewSessionResponse, PromptResponse
from acp.ws import create_websocket_stream
from acp_protocol.v1.agent import http_app

from tests.interop.our_agent import InteropAgent
from tests.remote.agents import cancel_slow_prompt, stream_prompt
from tests.remote.support import serving

pytestmark = pytest.mark.parametrize("scheme", ["http", "ws"])


class OfficialRemoteAgent:
    """An agent on the official SDK, one per HTTP connection: "stream" sends three chunks and
    ends `end_turn`; "slow" sends one and waits for `session/cancel`, then ends `cancelled`."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._cancelled: dict[str, asyncio.Event] = {}

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        session_id = f"official-{len(self._cancelled) + 1}"
        self._cancelled[session_id] = asyncio.Event()
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        if text == "slow":
            await self._conn.session_update(session_id, update_agent_message(text_block("working")))
            await self._cancelled[session_id].wait()
            return PromptResponse(stop_reason="cancelled")
        for part in ("one ", "two ", "three"):
            await self._conn.session_update(session_id, update_agent_message(text_block(part)))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self._cancelled[session_id].set()


class OfficialRecordingClient:
    """A client on the official SDK that keeps the text of the chunks it is sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.update_seen = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.texts.append(getattr(update.content, "text", ""))
        self.update_seen.set()


def _endpoint(base: str, scheme: str) -> str:
    return base.replace("http", scheme, 1) + "/acp"


@pytest.fixture
async def official_server(scheme: str) -> AsyncIterator[str]:
    # The official SDK types its factory as returning its `Agent` protocol, which a plain class
    # with the methods used satisfies at run time (as in tests/interop/official_agent.py).
    async with serving(create_asgi_app(OfficialRemoteAgent)) as base:  # type: ignore[arg-type]
        yield _endpoint(base, scheme)


@pytest.fixture
async def our_server(scheme: str) -> AsyncIterator[str]:
    async with serving(http_app(InteropAgent)) as base:
        yield _endpoint(base, scheme)


async def _official_transport(url: str) -> Any:
    if url.startswith("ws"):
        return await create_websocket_stream(url)
    return create_http_stream(url)


async def test_our_client_streams_a_prompt_from_the_official_server(official_server: str) -> None:
    session_id, response, texts = await stream_prompt(official_server)
    assert session_id == "official-1"
    assert response.stop_reason == "end_turn"
    assert texts == ["one ", "two ", "three"]


async def test_our_client_cancels_a_prompt_on_the_official_server(official_server: str) -> None:
    response = await cancel_slow_prompt(official_server)
    assert response.stop_reason == "cancelled"


async def test_the_official_client_streams_a_prompt_from_our_server(our_server: str) -> None:
    client = OfficialRecordingClient()
    transport = await _official_transport(our_server)
    async with connect_to_agent(client, transport) as conn:  # type: ignore[arg-type]
        init = await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd="/", mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("stream")])
    assert init.protocol_version == 1
    assert response.stop_reason == "end_turn"
    assert client.texts == ["one ", "two ", "three"]


async def test_the_official_client_cancels_a_prompt_on_our_server(our_server: str) -> None:
    client = OfficialRecordingClient()
    transport = await _official_transport(our_server)
    async with connect_to_agent(client, transport) as conn:  # type: ignore[arg-type]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd="/", mcp_servers=[])
        call = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("slow")])
        )
        await asyncio.wait_for(client.update_seen.wait(), 10)
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(call, 10)
    assert response.stop_reason == "cancelled"
