"""Several agent server processes behind nginx, sessions in PostgreSQL: the process holding a
client's connection is killed during a turn; the client reconnects through nginx to another
process, resumes the session and the conversation goes on. Nothing acknowledged is lost (a load
by a new client replays every answered turn, in order, once); the turn in flight is reported to
its caller as `ConnectionClosed`, never dropped. Our Python and TypeScript clients over each
transport, and our Go client over WebSocket (tests/typescript/reconnect_client.ts, built by
`make ts-build`; tests/go/interop/reconnect_client), once each in make test, on one cluster of
six processes: each test kills one (five tests). Ten runs in a row: docs/scale.md."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from acp_protocol.runtime.errors import ConnectionClosed
from acp_protocol.runtime.reconnect import Reconnect
from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientContext, connect_remote

from tests.go.support import go_program
from tests.paths import ROOT
from tests.runtime.support import eventually
from tests.services import nginx

ROUTES = ("a", "b", "c", "d", "e", "f")
TYPESCRIPT = ROOT / ".build" / "typescript" / "dist-test" / "test" / "reconnect_client.js"


@dataclass
class Cluster:
    servers: dict[str, subprocess.Popen[str]]
    proxy: nginx.Proxy

    def stop(self) -> None:
        for server in self.servers.values():
            if server.poll() is None:
                server.kill()
            server.wait(timeout=30)
        self.proxy.stop()


def start_cluster(dsn: str) -> Cluster:
    schema = f"scale_{uuid.uuid4().hex}"
    servers: dict[str, subprocess.Popen[str]] = {}
    ports: dict[str, int] = {}
    try:
        for route in ROUTES:
            servers[route] = subprocess.Popen(
                [sys.executable, "-m", "tests.scale.agent_server", dsn, schema, route],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
            )
        for route, server in servers.items():
            assert server.stdout is not None
            line = server.stdout.readline()
            assert line.strip().isdigit(), f"agent server {route} did not start"
            ports[route] = int(line)
        return Cluster(servers, nginx.start(ports))
    except BaseException:
        for server in servers.values():
            server.kill()
        raise


@pytest.fixture(scope="module")
def cluster(postgres: str) -> Iterator[Cluster]:
    try:
        running = start_cluster(postgres)
    except nginx.Unavailable as error:
        pytest.skip(str(error))
    try:
        yield running
    finally:
        running.stop()


class Listener(Client):
    """Keeps the text of every update it is sent."""

    def __init__(self) -> None:
        self.said: list[str] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.said.append(params.update.to_wire()["content"]["text"])


def prompt(session_id: str, text: str) -> models.PromptRequest:
    return models.PromptRequest.model_validate(
        {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    )


INIT = models.InitializeRequest(protocol_version=1)


@pytest.mark.parametrize("scheme", ["ws", "http"])
async def test_a_killed_server_s_client_reconnects_through_nginx_and_the_conversation_goes_on(
    cluster: Cluster, scheme: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="acp_protocol.runtime.reconnect")
    url = cluster.proxy.url(scheme)
    listener = Listener()
    policy = Reconnect(attempts=5, first_delay=0.05)
    async with connect_remote(listener, url, reconnect=policy) as connection:
        await connection.agent.initialize(INIT)
        new = models.NewSessionRequest(cwd="/work", mcp_servers=[])
        session_id = (await connection.agent.session_new(new)).session_id
        for text in "ab":
            await connection.agent.session_prompt(prompt(session_id, text))
        in_flight = asyncio.create_task(connection.agent.session_prompt(prompt(session_id, "hang")))
        await eventually(lambda: any(s.startswith("hang@") for s in listener.said))
        holder = int(next(s for s in listener.said if s.startswith("hang@")).split("@")[1])
        os.kill(holder, signal.SIGKILL)
        with pytest.raises(ConnectionClosed):
            await in_flight  # reported to its caller, never dropped
        await connection.reconnected()
        answer = await connection.agent.session_prompt(prompt(session_id, "c"))
        assert answer.stop_reason == "end_turn"
        await eventually(lambda: listener.said[-2:] == ["c:1", "c:2"])
    lines = [r.getMessage() for r in caplog.records if r.name.endswith("reconnect")]
    assert len(lines) == 1 and lines[0].startswith(f"reconnect 1/5 to {url}: connected")
    assert lines[0].endswith("1 session(s) resumed")

    # Any process now replays the conversation: every answered turn, in order, once.
    assert await replayed(url, session_id) == ["a:1", "a:2", "b:1", "b:2", "c:1", "c:2"]


async def replayed(url: str, session_id: str) -> list[str]:
    """The answered turns' updates a new client's `session/load` replays, through nginx."""
    replay = Listener()
    async with connect_remote(replay, url) as connection:
        await connection.agent.initialize(INIT)
        load = models.LoadSessionRequest(session_id=session_id, cwd="/work", mcp_servers=[])
        await connection.agent.session_load(load)
        await eventually(lambda: "c:2" in replay.said)
    return [s for s in replay.said if not s.startswith("hang@")]


@pytest.mark.skipif(
    not TYPESCRIPT.exists(), reason="the TypeScript tests are not built: make ts-build"
)
@pytest.mark.parametrize("scheme", ["ws", "http"])
async def test_our_typescript_client_reconnects_too(cluster: Cluster, scheme: str) -> None:
    await drive(["node", str(TYPESCRIPT)], cluster.proxy.url(scheme))


async def test_our_go_client_reconnects_too(cluster: Cluster) -> None:
    # The Go runtime's remote client speaks WebSocket (docs/go-target.md).
    await drive([go_program("reconnect_client")], cluster.proxy.url("ws"))


async def drive(command: list[str], url: str) -> None:
    """Runs a client of another language (tests/typescript/reconnect_client.ts, tests/go/interop/
    reconnect_client): kills the process it names as holding its turn, then checks its report."""
    client = subprocess.Popen(
        [*command, url],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert client.stdout is not None
        first = await asyncio.to_thread(client.stdout.readline)
        assert first.startswith("HOLDER "), first + client.stderr.read() if client.stderr else ""
        os.kill(int(first.split()[1]), signal.SIGKILL)
        rest, errors = await asyncio.to_thread(client.communicate, timeout=120)
    finally:
        if client.poll() is None:
            client.kill()
    assert client.returncode == 0, errors
    lines = rest.splitlines()
    assert lines[0] == "INFLIGHT ConnectionClosed"  # reported, never dropped
    logged = [line for line in lines if line.startswith("LOG ")]
    assert len(logged) == 1 and logged[0].startswith(f"LOG reconnect 1/5 to {url}: connected")
    assert logged[0].endswith("1 session(s) resumed")
    assert "ANSWER end_turn" in lines
    said = json.loads(next(line for line in lines if line.startswith("SAID "))[5:])
    assert [s for s in said if not s.startswith("hang@")] == [
        "a:1",
        "a:2",
        "b:1",
        "b:2",
        "c:1",
        "c:2",
    ]
    session_id = next(line for line in lines if line.startswith("SESSION ")).split()[1]
    assert await replayed(url, session_id) == ["a:1", "a:2", "b:1", "b:2", "c:1", "c:2"]
