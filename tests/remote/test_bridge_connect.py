"""`bridge connect URL`: a remote agent as a stdio agent. Our stdio client spawns the bridge, which
forwards to our HTTP server (uvicorn on loopback); frames pass both ways unchanged."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
from acp_protocol.runtime import CancelSignal, RequestCancelled, RequestOptions
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.v1 import models
from acp_protocol.v1.agent import http_app
from acp_protocol.v1.client import ClientConnection, spawn_agent

from tests.interop.our_agent import InteropAgent
from tests.paths import ROOT
from tests.remote.agents import RecordingClient, initialize_request, new_session, prompt
from tests.remote.support import serving
from tests.runtime.test_stdio_dev_null import LOOPS

BRIDGE = (sys.executable, "-m", "acp_protocol.bridge")
EOF_GRACE = 5.0
"""`bridge connect`'s default `eof_grace`: how long it forwards after stdin ends, at the most."""


@pytest.fixture(params=["http", "ws"])
async def url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    async with serving(http_app(InteropAgent)) as base:
        yield base.replace("http", request.param, 1) + "/acp"


async def _session(connection: ClientConnection) -> str:
    await connection.agent.initialize(initialize_request())
    return (await connection.agent.session_new(new_session())).session_id


async def test_a_stdio_client_prompts_a_remote_agent_through_the_bridge(url: str) -> None:
    client = RecordingClient()
    async with spawn_agent(client, *BRIDGE, "connect", url) as connection:
        session_id = await _session(connection)
        response = await connection.agent.session_prompt(prompt(session_id, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.texts() == ["one ", "two ", "three"]


async def test_a_stdio_clients_cancel_request_reaches_the_remote_agent(url: str) -> None:
    client = RecordingClient()
    async with spawn_agent(client, *BRIDGE, "connect", url) as connection:
        session_id = await _session(connection)
        cancel = CancelSignal()
        params = prompt(session_id, "slow").to_wire()
        call = asyncio.ensure_future(
            connection.connection.request("session/prompt", params, RequestOptions(cancel=cancel))
        )
        await asyncio.wait_for(client.update_seen.wait(), 10)
        cancel.cancel()
        with pytest.raises(RequestCancelled) as raised:
            await asyncio.wait_for(call, 10)
    assert raised.value.code == -32800


async def test_a_stdio_clients_session_cancel_ends_the_remote_prompt_cancelled(url: str) -> None:
    client = RecordingClient()
    async with spawn_agent(client, *BRIDGE, "connect", url) as connection:
        session_id = await _session(connection)
        call = asyncio.ensure_future(connection.agent.session_prompt(prompt(session_id, "slow")))
        await asyncio.wait_for(client.update_seen.wait(), 10)
        await connection.agent.session_cancel(models.CancelNotification(session_id=session_id))
        response = await asyncio.wait_for(call, 10)
    assert response.stop_reason == "cancelled"


async def test_requests_written_before_the_end_of_stdin_are_all_answered(url: str) -> None:
    """`printf … | bridge connect URL`: stdin's end is a half-close, then the bridge exits 0."""
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": "/", "mcpServers": []},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "session/prompt",
            "params": {"sessionId": "py-1", "prompt": [{"type": "text", "text": "stream"}]},
        },
    ]
    stdin = "".join(json.dumps(frame) + "\n" for frame in frames).encode()
    process = await asyncio.create_subprocess_exec(
        *BRIDGE,
        "connect",
        url,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(stdin), 30)
    messages = [json.loads(line) for line in stdout.splitlines()]
    answers = {m["id"]: m for m in messages if "id" in m and "method" not in m}
    assert process.returncode == 0, stderr
    assert stderr == b""
    assert sorted(answers) == [1, 2, 3]
    assert answers[2]["result"]["sessionId"] == "py-1"
    assert answers[3]["result"] == {"stopReason": "end_turn"}
    assert sum(m.get("method") == "session/update" for m in messages) == 3


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_remote_agent_going_away_ends_the_bridge_with_one_line(scheme: str) -> None:
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.remote.serve_agent", cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    assert server.stdout is not None
    port = int(await asyncio.wait_for(server.stdout.readline(), 20))
    url = f"{scheme}://127.0.0.1:{port}/acp"
    bridge = await asyncio.create_subprocess_exec(
        *BRIDGE,
        "connect",
        url,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert bridge.stdin is not None and bridge.stdout is not None and bridge.stderr is not None
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": 1},
    }
    bridge.stdin.write(json.dumps(initialize).encode() + b"\n")
    answer = json.loads(await asyncio.wait_for(bridge.stdout.readline(), 20))
    server.send_signal(signal.SIGKILL)
    await server.wait()
    status = await asyncio.wait_for(bridge.wait(), 20)
    stderr = (await bridge.stderr.read()).decode().splitlines()
    assert answer["result"]["protocolVersion"] == 1
    assert status == 1
    assert len(stderr) == 1, stderr
    assert stderr[0].startswith(f"bridge connect: the connection to {url} ended: ")


async def test_an_unreachable_remote_agent_is_one_line_and_initialize_fails() -> None:
    bridge = await asyncio.create_subprocess_exec(
        *BRIDGE,
        "connect",
        "http://127.0.0.1:9/acp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": 1},
    }
    stdout, stderr = await asyncio.wait_for(
        bridge.communicate(json.dumps(initialize).encode() + b"\n"), 30
    )
    assert json.loads(stdout)["error"]["code"] == -32603
    assert bridge.returncode == 1
    (line,) = stderr.decode().splitlines()
    assert line.startswith("bridge connect: the connection to http://127.0.0.1:9/acp ended: ")


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_no_agent_outlives_a_closed_bridge_client(scheme: str) -> None:
    """At the end of stdin the bridge ends its connection on the server (`DELETE` over HTTP, the
    WebSocket's close) and exits once every request sent was answered, without waiting out its
    `eof_grace` (5 s): a caller that stops it after 2 s (the example client, the Go starter)
    never leaves the served agent running until the server's idle timeout."""
    app = http_app(InteropAgent)
    async with serving(app) as base:
        url = base.replace("http", scheme, 1) + "/acp"
        process = await asyncio.create_subprocess_exec(
            *BRIDGE,
            "connect",
            url,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stdin is not None and process.stdout is not None
        params = {"protocolVersion": 1}
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        process.stdin.write(json.dumps(initialize).encode() + b"\n")
        answer = json.loads(await asyncio.wait_for(process.stdout.readline(), 20))
        assert answer["result"]["protocolVersion"] == 1
        assert app.connection_count == 1
        process.stdin.close()
        started = asyncio.get_running_loop().time()
        status = await asyncio.wait_for(process.wait(), 20)
        took = asyncio.get_running_loop().time() - started
        assert status == 0, (await process.stderr.read()).decode()  # type: ignore[union-attr]
        assert took < EOF_GRACE  # it did not wait out the grace: nothing was left unanswered
        for _ in range(100):  # the server ends the agent as the DELETE (or close) arrives
            if app.connection_count == 0:
                break
            await asyncio.sleep(0.01)
        assert app.connection_count == 0


@pytest.mark.parametrize("loop", LOOPS)
def test_bridge_connect_with_dev_null_for_stdin_exits_0(loop: str) -> None:
    """A bridge with `/dev/null` for stdin (tests/runtime/test_stdio_dev_null.py): nothing to
    forward, so it ends at once (an `http://` agent is not even reached). Here, not under
    tests/runtime: the bridge needs the `http` extra, which the runtime matrix leaves out."""
    with open("/dev/null", "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "acp_protocol.bridge", "connect", "http://127.0.0.1:9/acp"],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=10,
            env={**os.environ, "ACP_EVENT_LOOP": loop},
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("given", [None, "wrong"])
async def test_a_refused_token_is_one_line_that_says_what_to_do(given: str | None) -> None:
    """A server that wants a token (HTTP 401): no token names `--token-env`; a wrong one names the
    variable it came from. One line on stderr, exit 1."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": 1},
    }
    async with serving(http_app(InteropAgent, HttpServerOptions(token="s3cret"))) as base:
        options = [] if given is None else ["--token-env", "ACP_TEST_TOKEN"]
        process = await asyncio.create_subprocess_exec(
            *BRIDGE,
            "connect",
            base + "/acp",
            *options,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "ACP_TEST_TOKEN": given or ""},
        )
        _, stderr = await asyncio.wait_for(
            process.communicate(json.dumps(initialize).encode() + b"\n"), 30
        )
    (line,) = stderr.decode().splitlines()
    assert process.returncode == 1
    assert "HTTP 401" in line
    if given is None:
        assert line.endswith("(the server wants a token: --token-env VAR sends the one in $VAR)")
    else:
        assert line.endswith(
            "(the server refused the token in $ACP_TEST_TOKEN: is it the one `serve` was given?)"
        )
