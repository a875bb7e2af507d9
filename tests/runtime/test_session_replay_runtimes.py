"""A session moves between server processes of three runtimes sharing one PostgreSQL schema,
none with code for `session/list`, `session/load` or `session/resume` (session_replay in each
runtime): started by a Python agent, listed, loaded (its updates replayed in order, before the
answer) and resumed by a TypeScript server process, continued by a Go one, loaded back by
Python; then a TypeScript process with a cap of 3 keeps the last 3 updates and says how many it
dropped, as the Python store does. A TypeScript and a Go process prompting one session at once
lose no update. Needs `make ts-build` and Go."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime.session_postgres import open_postgres_store
from acp_protocol.runtime.session_replay import REPLAY_META

from tests.go.support import BIN, TESTS, assert_ok, run_go
from tests.paths import ROOT
from tests.runtime.test_session_replay import process, said, turn

TS_AGENT = ROOT / ".build" / "typescript" / "dist-test" / "test" / "replay_agent.js"

pytestmark = pytest.mark.skipif(
    not TS_AGENT.exists(), reason="the TypeScript tests are not built: make ts-build"
)


class Stdio:
    """A server process on stdio, and the client's raw end of its connection."""

    def __init__(self, agent: asyncio.subprocess.Process) -> None:
        self.agent = agent

    @classmethod
    async def start(cls, *command: str) -> Stdio:
        agent = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        server = cls(agent)
        answer = (await server.call(0, "initialize", {"protocolVersion": 1}))[-1]
        capabilities = answer["result"]["agentCapabilities"]
        assert capabilities["loadSession"] is True, answer
        assert "resume" in capabilities["sessionCapabilities"], answer
        return server

    async def call(self, request_id: int, method: str, params: Any) -> list[dict[str, Any]]:
        """The frames up to and including the request's answer."""
        assert self.agent.stdin is not None and self.agent.stdout is not None
        frame = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.agent.stdin.write(json.dumps(frame).encode() + b"\n")
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1].get("id") != request_id:
            line = await asyncio.wait_for(self.agent.stdout.readline(), 60)
            assert line, f"{method}: the server process ended"
            frames.append(json.loads(line))
        return frames

    async def prompt(self, request_id: int, session_id: str, text: str) -> list[str]:
        prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        frames = await self.call(request_id, "session/prompt", prompt)
        assert frames[-1]["result"] == {"stopReason": "end_turn"}, frames[-1]
        return said(frames)

    async def load(self, request_id: int, session_id: str) -> tuple[list[str], Any]:
        params = {"sessionId": session_id, "cwd": "/work", "mcpServers": []}
        frames = await self.call(request_id, "session/load", params)
        return said(frames), frames[-1]["result"]

    async def stop(self) -> None:
        assert self.agent.stdin is not None
        self.agent.stdin.close()
        try:
            await asyncio.wait_for(self.agent.wait(), 30)
        except TimeoutError:
            self.agent.kill()
            await self.agent.wait()


def built_go_agent() -> Path:
    module = TESTS / "postgres"
    assert_ok(run_go(["go", "build", "-o", str(BIN / "replay-agent"), "./replay_agent"], module))
    return BIN / "replay-agent"


async def test_a_session_python_started_is_loaded_by_typescript_continued_by_go_and_capped(
    postgres: str,
) -> None:
    schema = f"replay_runtimes_{uuid.uuid4().hex}"
    go_agent = await asyncio.to_thread(built_go_agent)
    store = await open_postgres_store(postgres, schema=schema, pool_size=2)
    try:
        async with process(store) as python:
            python.request(1, "session/new", {"cwd": "/work", "mcpServers": []})
            session_id = (await python.receive())["result"]["sessionId"]
            for n, text in enumerate("ab", 2):
                await turn(python, session_id, text, n)

        typescript = await Stdio.start("node", str(TS_AGENT), postgres, schema)
        listed = (await typescript.call(1, "session/list", {}))[-1]["result"]["sessions"]
        assert [(s["sessionId"], s["cwd"]) for s in listed] == [(session_id, "/work")]
        assert await typescript.load(2, session_id) == (["a:1", "a:2", "b:1", "b:2"], {})
        resumed = await typescript.call(3, "session/resume", {"sessionId": session_id, "cwd": "/w"})
        assert resumed == [{"jsonrpc": "2.0", "id": 3, "result": {}}]  # no replay
        assert await typescript.prompt(4, session_id, "c") == ["c:1", "c:2"]
        unknown = await typescript.call(5, "session/resume", {"sessionId": "no", "cwd": "/w"})
        assert unknown[-1]["error"]["code"] == -32002
        await typescript.stop()

        go = await Stdio.start(str(go_agent), postgres, schema)
        replayed, result = await go.load(1, session_id)
        assert (replayed, result) == (["a:1", "a:2", "b:1", "b:2", "c:1", "c:2"], {})
        assert await go.prompt(2, session_id, "d") == ["d:1", "d:2"]
        unknown = await go.call(
            3, "session/load", {"sessionId": "no", "cwd": "/w", "mcpServers": []}
        )
        assert (unknown[-1]["error"]["code"], unknown[-1]["error"]["data"]) == (
            -32002,
            {"sessionId": "no"},
        )
        await go.stop()

        async with process(store) as python:
            params = {"sessionId": session_id, "cwd": "/work", "mcpServers": []}
            python.request(1, "session/load", params)
            frames: list[dict[str, Any]] = []
            while not frames or frames[-1].get("id") != 1:
                frames.append(await python.receive())
        assert said(frames) == [f"{t}:{n}" for t in "abcd" for n in (1, 2)]

        capped = await Stdio.start("node", str(TS_AGENT), postgres, schema, "3")
        assert await capped.prompt(1, session_id, "e") == ["e:1", "e:2"]
        replayed, result = await capped.load(2, session_id)
        await capped.stop()
        assert replayed == ["d:2", "e:1", "e:2"]
        assert result["_meta"][REPLAY_META] == {"replayed": 3, "dropped": 7, "limit": 3}

        go = await Stdio.start(str(go_agent), postgres, schema, "3")
        replayed, result = await go.load(1, session_id)
        await go.stop()
        assert replayed == ["d:2", "e:1", "e:2"]
        assert result["_meta"][REPLAY_META] == {"replayed": 3, "dropped": 7, "limit": 3}
    finally:
        await store.aclose()


async def test_a_typescript_and_a_go_process_prompting_one_session_at_once_lose_no_update(
    postgres: str,
) -> None:
    """Two processes append to one session's history at once (the append holds a lock on the
    session): every update is replayed, each process's in the order it sent them."""
    schema = f"replay_runtimes_{uuid.uuid4().hex}"
    go_agent = await asyncio.to_thread(built_go_agent)
    typescript = await Stdio.start("node", str(TS_AGENT), postgres, schema)
    go = await Stdio.start(str(go_agent), postgres, schema)
    try:
        frames = await typescript.call(1, "session/new", {"cwd": "/work", "mcpServers": []})
        session_id = frames[-1]["result"]["sessionId"]

        async def turns(server: Stdio, name: str) -> None:
            for n in range(10):
                assert await server.prompt(n + 2, session_id, f"{name}{n}") == [
                    f"{name}{n}:1",
                    f"{name}{n}:2",
                ]

        await asyncio.gather(turns(typescript, "t"), turns(go, "g"))
        replayed, result = await go.load(20, session_id)
    finally:
        await typescript.stop()
        await go.stop()
    assert result == {}
    for name in "tg":
        mine = [text for text in replayed if text.startswith(name)]
        assert mine == [f"{name}{n}:{part}" for n in range(10) for part in (1, 2)]
    assert len(replayed) == 40
