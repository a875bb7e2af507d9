"""The HTTP server against hostile or broken clients, on real loopback HTTP (uvicorn): every
refusal is the status the RFD or HTTP gives, and a refused request leaves the connection up."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import httpx_sse
import pytest
from acp_protocol.runtime import Connection, ConnectionClosed
from acp_protocol.runtime.transports.http_connection import HttpConnection
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.runtime.transports.http_server import AcpHttpServer
from acp_protocol.runtime.transports.remote import open_remote
from acp_protocol.v1.agent import http_app
from acp_protocol.v1.client import connect_remote

from tests.interop.our_agent import InteropAgent
from tests.remote.agents import RecordingClient, initialize_request, new_session
from tests.remote.support import serving

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}


def session_new(request_id: int) -> dict[str, Any]:
    params = {"cwd": "/", "mcpServers": []}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/new", "params": params}


async def initialize(http: httpx.AsyncClient, url: str, **headers: str) -> str:
    response = await http.post(url, json=INITIALIZE, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["protocolVersion"] == 1
    connection_id: str = response.headers["acp-connection-id"]
    return connection_id


async def next_event(http: httpx.AsyncClient, url: str, headers: dict[str, str]) -> Any:
    """The first message on the stream `headers` name."""
    async with httpx_sse.aconnect_sse(http, "GET", url, headers=headers) as events:
        assert events.response.status_code == 200
        async for event in events.aiter_sse():
            return json.loads(event.data)
    raise AssertionError("the stream ended without an event")


async def open_session(http: httpx.AsyncClient, url: str) -> tuple[str, str]:
    """A connection and a session of it (`session/new` answered on the connection stream)."""
    connection_id = await initialize(http, url)
    headers = {"acp-connection-id": connection_id}
    posted = await http.post(url, json=session_new(1), headers=headers)
    assert posted.status_code == 202
    answer = await asyncio.wait_for(next_event(http, url, headers), 10)
    return connection_id, answer["result"]["sessionId"]


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


def app(**options: Any) -> AcpHttpServer:
    return http_app(InteropAgent, HttpServerOptions(**options))


async def test_an_absent_connection_id_is_answered_400_and_an_unknown_one_404(
    http: httpx.AsyncClient,
) -> None:
    async with serving(app()) as base:
        url = base + "/acp"
        absent = await http.post(url, json=session_new(1))
        unknown = await http.post(url, json=session_new(1), headers={"acp-connection-id": "x"})
        stream = await http.get(
            url, headers={"acp-connection-id": "x", "accept": "text/event-stream"}
        )
        deleted = await http.delete(url, headers={"acp-connection-id": "x"})
    assert (absent.status_code, unknown.status_code) == (400, 404)
    assert (stream.status_code, deleted.status_code) == (404, 404)


async def test_another_connections_session_is_answered_404_and_nothing_leaks(
    http: httpx.AsyncClient,
) -> None:
    async with serving(app()) as base:
        url = base + "/acp"
        _, session = await open_session(http, url)
        intruder = await initialize(http, url)
        headers = {"acp-connection-id": intruder, "acp-session-id": session}
        stream = await http.get(url, headers={**headers, "accept": "text/event-stream"})
        params = {"sessionId": session, "prompt": [{"type": "text", "text": "stream"}]}
        prompt = {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": params}
        posted = await http.post(url, json=prompt, headers=headers)
    assert (stream.status_code, posted.status_code) == (404, 404)


async def test_a_body_over_the_limit_is_answered_413_and_the_connection_stays_up(
    http: httpx.AsyncClient,
) -> None:
    async with serving(app(frame_limit=4096)) as base:
        url = base + "/acp"
        connection_id = await initialize(http, url)
        headers = {"acp-connection-id": connection_id}
        big = session_new(1)
        big["params"]["cwd"] = "/" + "x" * 8192
        refused = await http.post(url, json=big, headers=headers)
        accepted = await http.post(url, json=session_new(2), headers=headers)
        answer = await asyncio.wait_for(next_event(http, url, headers), 10)
    assert (refused.status_code, accepted.status_code) == (413, 202)
    assert answer["id"] == 2 and "sessionId" in answer["result"]


async def test_a_foreign_origin_is_answered_403(http: httpx.AsyncClient) -> None:
    editor = "http://editor.localhost:3000"
    async with serving(app(allowed_origins=frozenset({editor}))) as base:
        url = base + "/acp"
        foreign = await http.post(url, json=INITIALIZE, headers={"origin": "http://evil.example"})
        allowed = await http.post(url, json=INITIALIZE, headers={"origin": editor})
        with pytest.raises(ConnectionError, match="403"):
            await open_remote(
                url.replace("http", "ws", 1), headers={"origin": "http://evil.example"}
            )
    assert (foreign.status_code, allowed.status_code) == (403, 200)


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_a_missing_token_is_answered_401_and_the_right_one_connects(
    http: httpx.AsyncClient, scheme: str
) -> None:
    async with serving(app(token="s3cret")) as base:
        url = base + "/acp"
        missing = await http.post(url, json=INITIALIZE)
        wrong = await http.post(url, json=INITIALIZE, headers={"authorization": "Bearer nope"})
        remote = url.replace("http", scheme, 1)
        async with connect_remote(RecordingClient(), remote, token="s3cret") as connection:
            answer = await connection.agent.initialize(initialize_request())
    assert (missing.status_code, wrong.status_code) == (401, 401)
    assert missing.headers["www-authenticate"] == "Bearer"
    assert answer.protocol_version == 1


async def test_invalid_json_is_answered_400_with_a_parse_error(http: httpx.AsyncClient) -> None:
    async with serving(app()) as base:
        response = await http.post(
            base + "/acp", content=b"{not json", headers={"content-type": "application/json"}
        )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700


async def test_a_batch_is_answered_501(http: httpx.AsyncClient) -> None:
    async with serving(app()) as base:
        response = await http.post(base + "/acp", json=[INITIALIZE])
    assert response.status_code == 501


async def test_content_type_and_accept_are_checked_415_and_406(http: httpx.AsyncClient) -> None:
    async with serving(app()) as base:
        url = base + "/acp"
        connection_id = await initialize(http, url)
        text = await http.post(url, content=b"{}", headers={"content-type": "text/plain"})
        stream = await http.get(url, headers={"acp-connection-id": connection_id})
    assert (text.status_code, stream.status_code) == (415, 406)


async def test_a_session_scoped_post_without_acp_session_id_is_answered_400(
    http: httpx.AsyncClient,
) -> None:
    async with serving(app()) as base:
        url = base + "/acp"
        connection_id, session = await open_session(http, url)
        params = {"sessionId": session, "prompt": [{"type": "text", "text": "stream"}]}
        prompt = {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": params}
        response = await http.post(url, json=prompt, headers={"acp-connection-id": connection_id})
    assert response.status_code == 400


async def test_connections_past_the_limit_are_answered_429(http: httpx.AsyncClient) -> None:
    async with serving(app(max_connections=2)) as base:
        url = base + "/acp"
        await initialize(http, url)
        await initialize(http, url)
        third = await http.post(url, json=INITIALIZE)
    assert third.status_code == 429
    assert third.headers["retry-after"] == "1"


async def test_a_deleted_connection_is_gone(http: httpx.AsyncClient) -> None:
    async with serving(app()) as base:
        url = base + "/acp"
        connection_id = await initialize(http, url)
        headers = {"acp-connection-id": connection_id}
        deleted = await http.delete(url, headers=headers)
        await asyncio.sleep(0.2)
        after = await http.post(url, json=session_new(1), headers=headers)
    assert (deleted.status_code, after.status_code) == (202, 404)


async def test_abandoned_connections_are_ended_after_the_idle_time(
    http: httpx.AsyncClient,
) -> None:
    server = app(idle_timeout=0.3)
    async with serving(server) as base:
        url = base + "/acp"
        first = await initialize(http, url)
        for _ in range(9):
            await initialize(http, url)
        for _ in range(50):
            if server.connection_count == 0:
                break
            await asyncio.sleep(0.1)
        after = await http.post(url, json=session_new(1), headers={"acp-connection-id": first})
    assert server.connection_count == 0
    assert after.status_code == 404


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_server_vanishing_fails_pending_calls_at_once(scheme: str) -> None:
    """The server process is killed mid-stream: the pending prompt fails with ConnectionClosed
    at once (no answer will come), as when a stdio agent dies."""
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.remote.serve_agent", stdout=asyncio.subprocess.PIPE
    )
    try:
        assert server.stdout is not None
        port = int(await asyncio.wait_for(server.stdout.readline(), 30))
        client = RecordingClient()
        url = f"{scheme}://127.0.0.1:{port}/acp"
        async with connect_remote(client, url) as connection:
            await connection.agent.initialize(initialize_request())
            session = (await connection.agent.session_new(new_session())).session_id
            params = {"sessionId": session, "prompt": [{"type": "text", "text": "slow"}]}
            call = asyncio.ensure_future(connection.connection.request("session/prompt", params))
            await asyncio.wait_for(client.update_seen.wait(), 10)
            server.kill()
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(call, 2)
    finally:
        if server.returncode is None:
            server.kill()
        await server.wait()


async def test_a_thousand_abandoned_connections_leave_nothing_behind(
    http: httpx.AsyncClient,
) -> None:
    """1,000 connections opened (`initialize`) and never used again: all are ended after the idle
    time, and nothing of them stays in memory (no connection object; allocated blocks back within
    2,000 of where they were: one connection holds about 13 KiB while it lives)."""
    server = app(idle_timeout=1.0)
    async with serving(server) as base:
        url = base + "/acp"
        await initialize(http, url)  # the first one pays for the imports and caches
        await _until(lambda: server.connection_count == 0)
        gc.collect()
        blocks = sys.getallocatedblocks()
        for _ in range(1000):
            await initialize(http, url)
        await _until(lambda: server.connection_count == 0)
        gc.collect()
        retained = sys.getallocatedblocks() - blocks
        alive = [o for o in gc.get_objects() if isinstance(o, (HttpConnection, Connection))]
    assert alive == []
    assert retained < 2000


async def _until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not reached in time")
