"""A session started by one server process is listed, loaded and resumed by another that shares
its store, with no code in the agent for it (session_replay, session_history): the updates the
agent sent are recorded before the turn's answer and `session/load` replays them in order,
bounded by the store's `history_limit`. On SQLite and on PostgreSQL; schema version 2 migrates a
version 1 store and a newer version is refused."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import memory_pair, session_replay
from acp_protocol.runtime.session_backends import SessionStoreError
from acp_protocol.runtime.session_replay import REPLAY_META
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext, connect_agent

from tests.runtime.support import RawPeer

INIT = {"protocolVersion": 1}


class Talker(Agent):
    """Says two chunks per prompt; knows nothing of stores beyond the attribute."""

    def __init__(self, store: SessionStore) -> None:
        self.session_store = store

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=f"sess_{uuid.uuid4().hex}")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        said = params.prompt[0].to_wire()["text"]
        for part in (f"{said}:1", f"{said}:2"):
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": part},
            }
            await ctx.client.session_update(
                models.SessionNotification.model_validate(
                    {"sessionId": params.session_id, "update": update}
                )
            )
        return models.PromptResponse(stop_reason="end_turn")


@asynccontextmanager
async def process(store: SessionStore) -> AsyncIterator[RawPeer]:
    """One server process's agent on `store`, and the client's raw end of its connection."""
    ours, theirs = memory_pair()
    async with connect_agent(Talker(store), ours):
        peer = RawPeer(theirs)
        peer.request(0, "initialize", INIT)
        answer = await peer.receive()
        assert "result" in answer, answer
        capabilities = answer["result"]["agentCapabilities"]
        assert capabilities["loadSession"] is True
        assert "resume" in capabilities["sessionCapabilities"]
        yield peer


async def turn(peer: RawPeer, session_id: str, text: str, request_id: int) -> list[dict[str, Any]]:
    """A prompt; the frames up to and including its answer."""
    peer.request(
        request_id,
        "session/prompt",
        {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
    )
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1].get("id") != request_id:
        frames.append(await peer.receive())
    return frames


def said(frames: list[dict[str, Any]]) -> list[str]:
    return [
        f["params"]["update"]["content"]["text"]
        for f in frames
        if f.get("method") == "session/update"
    ]


Opener = Callable[..., Any]


@pytest.fixture(params=["sqlite", "postgres"])
async def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    """Opens a store on the same database each call, as another process would."""
    opened: list[SessionStore] = []
    if request.param == "sqlite":

        async def opener(**options: Any) -> SessionStore:
            opened.append(SessionStore(tmp_path / "sessions.db", **options))
            return opened[-1]

    else:
        dsn = request.getfixturevalue("postgres")
        from acp_protocol.runtime.session_postgres import open_postgres_store

        schema = f"replay_{uuid.uuid4().hex}"

        async def opener(**options: Any) -> SessionStore:
            opened.append(await open_postgres_store(dsn, schema=schema, pool_size=2, **options))
            return opened[-1]

    yield opener
    for store in opened:
        await store.aclose()


async def test_another_process_lists_loads_and_resumes_a_session_it_did_not_start(
    open_store: Opener,
) -> None:
    async with process(await open_store()) as first:
        first.request(1, "session/new", {"cwd": "/work", "mcpServers": []})
        session_id = (await first.receive())["result"]["sessionId"]
        answered = [await turn(first, session_id, text, n) for n, text in enumerate("ab", 2)]
    assert [said(frames) for frames in answered] == [["a:1", "a:2"], ["b:1", "b:2"]]
    async with process(await open_store()) as second:
        second.request(1, "session/list", {})
        listed = (await second.receive())["result"]["sessions"]
        assert [(s["sessionId"], s["cwd"]) for s in listed] == [(session_id, "/work")]
        second.request(
            2, "session/load", {"sessionId": session_id, "cwd": "/work", "mcpServers": []}
        )
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1].get("id") != 2:
            frames.append(await second.receive())
        assert said(frames) == ["a:1", "a:2", "b:1", "b:2"]  # in order, before the answer
        assert frames[-1]["result"] == {}
        second.request(3, "session/resume", {"sessionId": session_id, "cwd": "/work"})
        assert (await second.receive())["result"] == {}
        assert said(await turn(second, session_id, "c", 4)) == ["c:1", "c:2"]
    async with process(await open_store()) as third:
        third.request(
            1, "session/load", {"sessionId": session_id, "cwd": "/work", "mcpServers": []}
        )
        frames = []
        while not frames or frames[-1].get("id") != 1:
            frames.append(await third.receive())
        assert said(frames) == ["a:1", "a:2", "b:1", "b:2", "c:1", "c:2"]


async def test_a_session_the_store_does_not_know_is_resource_not_found(open_store: Opener) -> None:
    async with process(await open_store()) as peer:
        peer.request(1, "session/load", {"sessionId": "nope", "cwd": "/w", "mcpServers": []})
        peer.request(2, "session/resume", {"sessionId": "nope", "cwd": "/w"})
        errors = [(await peer.receive())["error"] for _ in range(2)]
    assert [(e["code"], e["data"]) for e in errors] == [(-32002, {"sessionId": "nope"})] * 2


async def test_a_history_past_the_cap_replays_the_last_updates_and_says_how_many_it_dropped(
    open_store: Opener,
) -> None:
    async with process(await open_store(history_limit=3)) as peer:
        peer.request(1, "session/new", {"cwd": "/w", "mcpServers": []})
        session_id = (await peer.receive())["result"]["sessionId"]
        for n, text in enumerate("abc", 2):
            await turn(peer, session_id, text, n)
        peer.request(9, "session/load", {"sessionId": session_id, "cwd": "/w", "mcpServers": []})
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1].get("id") != 9:
            frames.append(await peer.receive())
    assert said(frames) == ["b:2", "c:1", "c:2"]
    assert frames[-1]["result"]["_meta"][REPLAY_META] == {"replayed": 3, "dropped": 3, "limit": 3}


def test_a_version_1_sqlite_store_is_migrated_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE acp_sessions (position INTEGER PRIMARY KEY AUTOINCREMENT,"
        " session_id TEXT NOT NULL UNIQUE, cwd TEXT NOT NULL, title TEXT, updated_at TEXT,"
        " meta TEXT);"
        "INSERT INTO acp_session_store VALUES ('format', 'acp-codegen-session-store/1');"
        "INSERT INTO acp_sessions (session_id, cwd, title) VALUES ('s1', '/w', 'Old');"
    )
    db.close()
    store = SessionStore(path)
    record = store.get("s1")
    assert record is not None and record.title == "Old"
    store.close()
    db = sqlite3.connect(path)
    version = db.execute("SELECT value FROM acp_session_store WHERE key = 'version'").fetchone()
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    assert version == ("2",) and "acp_session_updates" in tables


def test_a_sqlite_store_of_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SessionStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE acp_session_store SET value = '3' WHERE key = 'version'")
    db.commit()
    db.close()
    with pytest.raises(SessionStoreError, match="schema version 3 is newer than this runtime's"):
        SessionStore(path)


class Hung(SessionStore):
    """A store whose history writes never answer (a database hung) or fail (one gone away)."""

    def __init__(self, fail: str | None = None) -> None:
        super().__init__()
        self.fail = fail

        async def write(session_id: str, updates: Any) -> None:
            if self.fail is not None:
                raise SessionStoreError(self.fail)
            await asyncio.Event().wait()

        self.history.arecord = write  # type: ignore[method-assign]


async def answer_of_a_turn_on(store: SessionStore) -> dict[str, Any]:
    async with process(store) as peer:
        peer.request(1, "session/new", {"cwd": "/w", "mcpServers": []})
        session_id = (await peer.receive())["result"]["sessionId"]
        return (await turn(peer, session_id, "a", 2))[-1]


async def test_a_store_that_cannot_write_makes_the_turns_answer_an_internal_error() -> None:
    answer = await answer_of_a_turn_on(Hung(fail="disk full"))
    assert answer["error"] == {
        "code": -32603,
        "message": "Internal error",
        "data": {"details": "session updates not recorded: disk full"},
    }


async def test_a_store_that_does_not_answer_fails_the_turn_within_the_record_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hung database must not hold the turn's answer: each write has RECORD_TIMEOUT."""
    monkeypatch.setattr(session_replay, "RECORD_TIMEOUT", 0.2)
    started = time.monotonic()
    answer = await asyncio.wait_for(answer_of_a_turn_on(Hung()), 10)
    assert answer["error"]["data"] == {
        "details": "session updates not recorded: the store did not answer within 0.2s"
    }
    assert time.monotonic() - started < 5
