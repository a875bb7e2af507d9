"""The bridge (`python -m acp_protocol.bridge`), on real loopback HTTP, as an editor and a user
would run it: `serve -- AGENT_COMMAND` exposes a stdio agent over Streamable HTTP and WebSocket,
one agent process per connection, frames unchanged; `connect URL` is a stdio agent that forwards
to a remote one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from acp_protocol.runtime import CancelSignal, RequestCancelled, RequestOptions
from acp_protocol.trace.frames import RecordedFrame, read_frames
from acp_protocol.v1 import models
from acp_protocol.v1.client import ClientConnection, connect_remote

from tests.paths import ROOT
from tests.remote.agents import RecordingClient, initialize_request, new_session, prompt

OUR_AGENT = str(ROOT / "tests" / "interop" / "our_agent.py")
BRIDGE = (sys.executable, "-m", "acp_protocol.bridge")


@dataclass
class Bridge:
    """A `bridge serve` process: its URL and what it printed on stderr."""

    process: asyncio.subprocess.Process
    url: str
    lines: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def agent_pids(self, count: int) -> list[int]:
        """The pids of the first `count` agents it started (waiting for them)."""
        while (
            len(pids := [int(p) for p in re.findall(r"agent started \(pid (\d+)\)", self.text)])
            < count
        ):
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)
        return pids[:count]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@contextlib.asynccontextmanager
async def bridge_serving(
    *command: str, options: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> AsyncIterator[Bridge]:
    """`bridge serve --port 0 OPTIONS -- COMMAND` (in `env`, which its agents inherit), ended
    with SIGTERM when the block ends."""
    process = await asyncio.create_subprocess_exec(
        *BRIDGE,
        "serve",
        "--port",
        "0",
        "--log-level",
        "info",
        *options,
        "--",
        *command,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    assert process.stderr is not None
    first = (await asyncio.wait_for(process.stderr.readline(), 20)).decode()
    found = re.search(r" at (https?://\S+)", first)
    assert found, first
    bridge = Bridge(process, found.group(1), [first.strip()])

    async def read_stderr() -> None:
        assert process.stderr is not None
        while line := await process.stderr.readline():
            bridge.lines.append(line.decode().rstrip())
            bridge.changed.set()

    reader = asyncio.get_running_loop().create_task(read_stderr())
    try:
        yield bridge
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 20)
        await reader


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


async def ended(pid: int, within: float = 10.0) -> bool:
    deadline = asyncio.get_running_loop().time() + within
    while alive(pid):
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def _session(connection: ClientConnection) -> str:
    await connection.agent.initialize(initialize_request())
    return (await connection.agent.session_new(new_session())).session_id


# -- serve: our stdio agent behind the bridge, our remote client in front -------------------------


@pytest.fixture
async def served() -> AsyncIterator[Bridge]:
    async with bridge_serving(sys.executable, OUR_AGENT) as bridge:
        yield bridge


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_a_served_stdio_agent_streams_a_prompts_updates_before_its_answer(
    served: Bridge, scheme: str
) -> None:
    client = RecordingClient()
    async with connect_remote(client, served.url.replace("http", scheme, 1)) as connection:
        session_id = await _session(connection)
        response = await connection.agent.session_prompt(prompt(session_id, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.texts() == ["one ", "two ", "three"]


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_cancel_request_passes_through_the_bridge_and_is_answered_minus_32800(
    served: Bridge, scheme: str
) -> None:
    client = RecordingClient()
    async with connect_remote(client, served.url.replace("http", scheme, 1)) as connection:
        session_id = await _session(connection)
        signal_ = CancelSignal()
        params = prompt(session_id, "slow").to_wire()
        call = asyncio.ensure_future(
            connection.connection.request("session/prompt", params, RequestOptions(cancel=signal_))
        )
        await asyncio.wait_for(client.update_seen.wait(), 10)
        signal_.cancel()
        with pytest.raises(RequestCancelled) as raised:
            await asyncio.wait_for(call, 10)
    assert raised.value.code == -32800


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_each_connection_has_its_own_agent_process_which_ends_with_the_connection(
    served: Bridge, scheme: str
) -> None:
    url = served.url.replace("http", scheme, 1)
    async with connect_remote(RecordingClient(), url) as first:
        await first.agent.initialize(initialize_request())
        async with connect_remote(RecordingClient(), url) as second:
            await second.agent.initialize(initialize_request())
            one, two = await served.agent_pids(2)
            assert one != two and alive(one) and alive(two)
        assert await ended(two), "the agent outlived its connection (DELETE / WebSocket close)"
        assert alive(one)
    assert await ended(one)


async def test_the_bridge_exiting_ends_every_agent_process(served: Bridge) -> None:
    async with connect_remote(RecordingClient(), served.url) as connection:
        await connection.agent.initialize(initialize_request())
        (pid,) = await served.agent_pids(1)
        served.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(served.process.wait(), 15) in (0, -signal.SIGTERM)
        assert await ended(pid, within=1.0)


async def test_an_agent_that_cannot_start_fails_initialize_in_one_line(tmp_path: Path) -> None:
    program = tmp_path / "agent"
    program.write_text("#!/bin/sh\nexit 3\n")
    program.chmod(0o755)
    async with bridge_serving(str(program)) as bridge:
        with pytest.raises(Exception) as raised:
            async with connect_remote(RecordingClient(), bridge.url) as connection:
                await asyncio.wait_for(connection.agent.initialize(initialize_request()), 10)
    assert "initialize refused: HTTP 502" in str(raised.value)
    assert "Traceback" not in bridge.text


# -- serve: frames pass byte for byte ------------------------------------------------------------

ECHO = rb"""import re, sys
ID = re.compile(rb'"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")')
for line in sys.stdin.buffer:
    line = line.rstrip(b"\n")
    found = ID.search(line)
    if found and b'"method"' in line:
        answer = b'{"jsonrpc":"2.0","id":' + found.group(1) + b',"result":{"echo":' + line + b"}}\n"
        sys.stdout.buffer.write(answer)
        sys.stdout.buffer.flush()
"""
"""Answers every request with the raw bytes of its id and the raw request line (no JSON
library: nothing on this side re-encodes either)."""

RAW_REQUESTS = [
    b'{"jsonrpc":"2.0","id":9223372036854775807,"method":"x/echo","params":{}}',
    b'{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x/echo","params":{}}',
    b'{"jsonrpc": "2.0", "id": 18446744073709551617, "method": "x/echo", "params": {"n": 1.0}}',
    b'{"jsonrpc":"2.0","id":"caf\\u00e9 \\ud83d\\ude00","method":"x/echo","params":{}}',
]
"""int64's ends, an id beyond int64 (a JSON library reads a float: 1.8446744073709552e+19),
and a string id written with escapes (a re-encoder would write UTF-8)."""


def echoed(request: bytes) -> bytes:
    raw_id = re.search(rb'"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")', request)
    assert raw_id is not None
    return b'{"jsonrpc":"2.0","id":' + raw_id.group(1) + b',"result":{"echo":' + request + b"}}"


async def test_ids_beyond_2_53_pass_byte_for_byte_over_http(tmp_path: Path) -> None:
    import httpx
    import httpx_sse

    (tmp_path / "echo.py").write_bytes(ECHO)
    initialize = b'{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{}}'
    pretty = b'{\n  "jsonrpc": "2.0",\n  "id": 9007199254740995,\n  "method": "x/echo"\n}'
    async with (
        bridge_serving(sys.executable, str(tmp_path / "echo.py")) as bridge,
        httpx.AsyncClient(timeout=10) as http,
    ):
        json_headers = {"content-type": "application/json"}
        opened = await http.post(bridge.url, content=initialize, headers=json_headers)
        assert opened.status_code == 200
        assert opened.content == echoed(initialize)
        headers = {"acp-connection-id": opened.headers["acp-connection-id"]}
        for request in [*RAW_REQUESTS, pretty]:
            posted = await http.post(
                bridge.url, content=request, headers={**headers, **json_headers}
            )
            assert posted.status_code == 202
        seen: list[bytes] = []
        async with httpx_sse.aconnect_sse(http, "GET", bridge.url, headers=headers) as events:
            async for event in events.aiter_sse():
                seen.append(event.data.encode())
                if len(seen) == len(RAW_REQUESTS) + 1:
                    break
        await http.delete(bridge.url, headers=headers)
    # A request spanning lines reaches the agent on one line: each newline (JSON whitespace
    # there) a space, nothing else changed.
    assert seen == [echoed(r) for r in RAW_REQUESTS] + [echoed(pretty.replace(b"\n", b" "))]


async def test_ids_beyond_2_53_pass_byte_for_byte_over_a_websocket(tmp_path: Path) -> None:
    from websockets.asyncio.client import connect

    (tmp_path / "echo.py").write_bytes(ECHO)
    async with (
        bridge_serving(sys.executable, str(tmp_path / "echo.py")) as bridge,
        connect(bridge.url.replace("http", "ws", 1)) as socket,
    ):
        for request in RAW_REQUESTS:
            await socket.send(request.decode(), text=True)
        # Text frames, read as they came (bytes: websockets does not decode them).
        seen = [await asyncio.wait_for(socket.recv(decode=False), 10) for _ in RAW_REQUESTS]
    assert seen == [echoed(r) for r in RAW_REQUESTS]


def test_a_non_loopback_address_needs_a_token_and_failures_are_one_line() -> None:
    import subprocess

    refused = subprocess.run(
        [*BRIDGE, "serve", "--host", "0.0.0.0", "--port", "0", "--", sys.executable],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        "bridge serve: --host 0.0.0.0 is reachable from other machines: set --token-env VAR "
        "(or --no-token to serve without one)"
    ]
    missing = subprocess.run(
        [*BRIDGE, "serve", "--", "no-such-agent-program"], capture_output=True, text=True
    )
    assert missing.stderr.splitlines() == [
        "bridge serve: cannot run the agent: no-such-agent-program: not found or not executable"
    ]
    usage = subprocess.run([*BRIDGE, "serve", "--port", "x"], capture_output=True, text=True)
    assert len(usage.stderr.splitlines()) == 1 and "--port" in usage.stderr


async def test_a_token_is_required_when_set(tmp_path: Path) -> None:
    os.environ["ACP_BRIDGE_TEST_TOKEN"] = "s3cret"
    try:
        async with bridge_serving(
            sys.executable, OUR_AGENT, options=("--token-env", "ACP_BRIDGE_TEST_TOKEN")
        ) as bridge:
            with pytest.raises(Exception) as raised:
                async with connect_remote(RecordingClient(), bridge.url) as connection:
                    await connection.agent.initialize(initialize_request())
            async with connect_remote(RecordingClient(), bridge.url, token="s3cret") as connection:
                answer = await connection.agent.initialize(initialize_request())
    finally:
        del os.environ["ACP_BRIDGE_TEST_TOKEN"]
    assert "HTTP 401" in str(raised.value)
    assert answer.protocol_version == 1
    assert models.InitializeResponse is type(answer)


# -- serve --trace: each connection recorded ------------------------------------------------------


async def test_serve_trace_records_each_connection_into_a_file_of_its_own(tmp_path: Path) -> None:
    """`--trace DIR`: one recording per connection (`<UTC time>-<connection id>.jsonl`), in
    acp_protocol.trace's format, holding the frames the client itself saw (its own ACP_TRACE)."""
    folder = tmp_path / "traces"
    os.environ["ACP_TRACE"] = str(tmp_path / "client-{n}.jsonl")
    try:
        async with bridge_serving(
            sys.executable, OUR_AGENT, options=("--trace", str(folder))
        ) as bridge:
            for scheme in ("http", "ws"):
                client = RecordingClient()
                url = bridge.url.replace("http", scheme, 1)
                async with connect_remote(client, url) as connection:
                    session_id = await _session(connection)
                    await connection.agent.session_prompt(prompt(session_id, "stream"))
    finally:
        del os.environ["ACP_TRACE"]
    recordings = sorted(folder.iterdir())
    assert len(recordings) == 2
    names = [re.fullmatch(r"\d{8}T\d{6}Z-(.+)\.jsonl", path.name) for path in recordings]
    assert all(names) and len({name.group(1) for name in names if name}) == 2
    clients = sorted(tmp_path.glob("client-*.jsonl"))
    for recording in recordings:
        lines = [json.loads(line) for line in recording.read_text().splitlines()]
        assert lines[0]["program"] == [sys.executable, OUR_AGENT]
        assert "exit" in lines[-1]
        sent = [frame.value for frame in read_frames(recording) if frame.dir == "sent"]
        assert [m["method"] for m in sent] == ["initialize", "session/new", "session/prompt"]
        received = [frame.value for frame in read_frames(recording) if frame.dir == "received"]
        chunks = [m["params"]["update"]["content"]["text"] for m in received if "method" in m]
        assert chunks == ["one ", "two ", "three"]
        # The client saw the same frames (the HTTP streams may deliver them in another order).
        seen = [canonical(read_frames(path)) for path in clients]
        assert canonical(read_frames(recording)) in seen


def canonical(frames: Iterable[RecordedFrame]) -> list[tuple[str, str]]:
    return sorted((frame.dir, json.dumps(frame.value, sort_keys=True)) for frame in frames)
