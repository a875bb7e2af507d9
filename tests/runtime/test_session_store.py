"""The session store (`acp_protocol.runtime.session_store`), on both backends, and its wiring."""

from __future__ import annotations

import asyncio
import itertools
import logging
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import InvalidParams, memory_pair
from acp_protocol.runtime.session_backends import SessionStoreError
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext, connect_agent
from acp_protocol.v1.client import Client, ClientContext, connect_client

from tests.runtime.support import RawPeer, eventually

STAMPS = (f"2026-11-21T12:00:{second:02}Z" for second in itertools.count())


def clock() -> str:
    return next(STAMPS)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SessionStore]:
    path = tmp_path / "sessions.db" if request.param == "sqlite" else None
    opened = SessionStore(path, clock=clock, page_size=2)
    yield opened
    opened.close()


def test_change_sends_only_the_changed_fields_and_stamps_updated_at(store: SessionStore) -> None:
    """ "Only include fields that have changed — omitted fields are left unchanged"."""
    store.create("s", "/work")
    update = store.change("s", title="First")
    assert update is not None
    assert update.keys() == {"sessionUpdate", "title", "updatedAt"}
    assert update["title"] == "First"
    assert update["updatedAt"].endswith("Z")
    assert store.change("s", title="First") is None  # nothing changed, nothing to send


def test_clearing_a_field_sends_an_explicit_null(store: SessionStore) -> None:
    """ "Set to `null` to clear" (session-list.mdx)."""
    store.create("s", "/work", title="Old")
    update = store.change("s", title=None, updated_at="2026-01-01T00:00:00Z")
    assert update == {
        "sessionUpdate": "session_info_update",
        "title": None,
        "updatedAt": "2026-01-01T00:00:00Z",
    }
    record = store.get("s")
    assert record is not None and record.title is None


def test_a_title_over_the_limit_is_truncated_before_sending(store: SessionStore) -> None:
    """RFD § Security: "Agents should validate title length (recommend 500 chars max)"."""
    store.create("s", "/work")
    update = store.change("s", title="x" * 600)
    assert update is not None and update["title"] == "x" * 500


def test_meta_over_the_size_limit_is_rejected_and_the_state_is_unchanged(
    store: SessionStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.create("s", "/work")
    store.change("s", meta={"keep": 1})
    before = store.get("s")
    with caplog.at_level(logging.ERROR):
        assert store.change("s", title="new", meta={"blob": "x" * (64 * 1024)}) is None
    assert store.get("s") == before
    assert "rejected" in caplog.text


def test_worked_example_three_updates_under_each_policy(tmp_path: Path) -> None:
    """The note's worked example: three updates in order, the stored result after each."""
    updates: list[dict[str, Any]] = [
        {"title": "Fix the build", "_meta": {"ci": {"job": 1, "state": "red"}, "owner": "ann"}},
        {"_meta": {"ci": {"state": "green"}, "owner": None}},
        {"title": None, "_meta": {"ci": {"job": 2}}},
    ]
    expected = {
        "merge": [
            ("Fix the build", {"ci": {"job": 1, "state": "red"}, "owner": "ann"}),
            ("Fix the build", {"ci": {"job": 1, "state": "green"}}),
            (None, {"ci": {"job": 2, "state": "green"}}),
        ],
        "replace": [
            ("Fix the build", {"ci": {"job": 1, "state": "red"}, "owner": "ann"}),
            ("Fix the build", {"ci": {"state": "green"}, "owner": None}),
            (None, {"ci": {"job": 2}}),
        ],
    }
    for policy, results in expected.items():
        mirror = SessionStore(policy=policy)  # type: ignore[arg-type]
        for update, (title, meta) in zip(updates, results, strict=True):
            record = mirror.apply_update("s", update)
            assert record is not None
            assert (record.title, record.meta) == (title, meta), policy


def test_meta_null_clears_all_of_it(store: SessionStore) -> None:
    store.create("s", "/work")
    store.change("s", meta={"a": 1})
    update = store.change("s", meta=None)
    assert update is not None and update["_meta"] is None
    record = store.get("s")
    assert record is not None and record.meta is None


def test_a_malformed_received_update_drops_the_bad_field_and_applies_the_rest(
    store: SessionStore,
) -> None:
    """x-deserialize-default-on-error: a wrong type is dropped, the rest applies."""
    record = store.apply_update("s", {"title": 42, "updatedAt": "2026-11-21T00:00:00Z"})
    assert record is not None
    assert (record.title, record.updated_at) == (None, "2026-11-21T00:00:00Z")


def test_list_pages_through_every_session_with_the_cursor(store: SessionStore) -> None:
    for number in range(5):
        store.create(f"s{number}", "/a" if number % 2 == 0 else "/b")
    seen: list[str] = []
    cursor = None
    while True:
        page = store.list_sessions(cursor=cursor)
        seen += [session["sessionId"] for session in page["sessions"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert seen == ["s0", "s1", "s2", "s3", "s4"]
    only_a = store.list_sessions(cwd="/a")
    assert [s["sessionId"] for s in only_a["sessions"]] == ["s0", "s2"]
    assert "nextCursor" in only_a
    rest = store.list_sessions(cwd="/a", cursor=only_a["nextCursor"])
    assert [s["sessionId"] for s in rest["sessions"]] == ["s4"]


def test_a_cursor_the_store_did_not_make_is_invalid_params(store: SessionStore) -> None:
    with pytest.raises(InvalidParams):
        store.list_sessions(cursor="not-a-cursor")


def test_sqlite_store_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    first = SessionStore(path, clock=clock)
    first.create("s1", "/work")
    first.change("s1", title="Kept", meta={"k": [1, 2]})
    first.close()
    again = SessionStore(path, clock=clock)
    [session] = again.list_sessions()["sessions"]
    assert session["title"] == "Kept" and session["_meta"] == {"k": [1, 2]}
    again.close()


def test_sqlite_refuses_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are not sessions\n" * 100)
    with pytest.raises(SessionStoreError, match="not a usable session store"):
        SessionStore(path)


def test_sqlite_refuses_another_programs_database(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(SessionStoreError, match="another program"):
        SessionStore(path)


async def test_agent_with_a_store_answers_session_list_with_no_extra_code() -> None:
    class Storing(Agent):
        session_store = SessionStore(clock=clock)

    Storing.session_store.create("s1", "/work", title="One")
    ours, theirs = memory_pair()
    async with connect_agent(Storing(), ours):
        peer = RawPeer(theirs)
        peer.request(1, "session/list", {})
        answer = await peer.receive()
    [session] = answer["result"]["sessions"]
    assert session["sessionId"] == "s1" and session["title"] == "One"


async def test_agent_without_a_store_answers_session_list_method_not_found() -> None:
    ours, theirs = memory_pair()
    async with connect_agent(Agent(), ours):
        peer = RawPeer(theirs)
        peer.request(1, "session/list", {})
        assert (await peer.receive())["error"]["code"] == -32601


async def test_absent_null_and_a_value_are_three_different_updates_end_to_end() -> None:
    """`{}`, `{"title": null}` and `{"title": "t"}` over the wire, agent to client mirror."""
    mirror = SessionStore(clock=clock)
    received: list[dict[str, Any]] = []

    class Mirroring(Client):
        async def session_update(
            self, params: models.SessionNotification, ctx: ClientContext
        ) -> None:
            wire = params.update.to_wire()
            received.append(wire)
            mirror.apply_update(params.session_id, wire)

    class Titling(Agent):
        async def session_prompt(
            self, params: models.PromptRequest, ctx: AgentContext
        ) -> models.PromptResponse:
            for fields in ({"title": "t"}, {}, {"title": None}):
                update = {"sessionUpdate": "session_info_update", **fields}
                await ctx.client.session_update(
                    models.SessionNotification.model_validate(
                        {"sessionId": params.session_id, "update": update}
                    )
                )
            return models.PromptResponse(stop_reason="end_turn")

    left, right = memory_pair()
    titles = []
    async with connect_agent(Titling(), left), connect_client(Mirroring(), right) as client:
        prompt = models.PromptRequest.model_validate({"sessionId": "s", "prompt": []})
        await client.agent.session_prompt(prompt)
        await eventually(lambda: len(received) == 3)
    for wire in received:
        titles.append(wire.get("title", "<absent>"))
    assert titles == ["t", "<absent>", None]
    record = mirror.get("s")
    assert record is not None and record.title is None


def test_new_sessions_get_ids_never_handed_out_before(tmp_path: Path) -> None:
    """A restarted agent with a persistent store never reissues an id (with its old title)."""
    path = tmp_path / "sessions.db"
    first = SessionStore(path)
    old = {first.new_session("/w", title=f"t{i}").session_id for i in range(3)}
    first.close()
    again = SessionStore(path)
    new = {again.new_session("/w").session_id for _ in range(3)}
    assert len(old) == len(new) == 3
    assert not old & new
    assert all(record.title is None for record in map(again.get, new) if record is not None)
    again.close()


def test_new_session_skips_an_id_the_store_already_has(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = store.new_session("/w").session_id
    ids = iter([uuid.UUID(taken.removeprefix("sess_")), uuid.UUID(int=7)])
    monkeypatch.setattr(uuid, "uuid4", lambda: next(ids))
    assert store.new_session("/w").session_id == f"sess_{uuid.UUID(int=7).hex}"


async def test_an_agent_with_a_store_advertises_session_list() -> None:
    """Clients call `session/list` only when `sessionCapabilities.list` is advertised: an agent
    with a `session_store` advertises it whatever its `initialize` returns."""

    class Plain(Agent):
        async def initialize(
            self, params: models.InitializeRequest, ctx: AgentContext
        ) -> models.InitializeResponse:
            return models.InitializeResponse(protocol_version=params.protocol_version)

    agent = Plain()
    agent.session_store = SessionStore()
    ours, theirs = memory_pair()
    async with connect_agent(agent, ours):
        client = RawPeer(theirs)
        client.request(1, "initialize", {"protocolVersion": 1})
        answer = await client.receive()
    # With it, session/load and session/resume from the store too (session_replay).
    capabilities = answer["result"]["agentCapabilities"]
    assert capabilities["sessionCapabilities"] == {"list": {}, "resume": {}}
    assert capabilities["loadSession"] is True
    without = Plain()
    ours, theirs = memory_pair()
    async with connect_agent(without, ours):
        client = RawPeer(theirs)
        client.request(1, "initialize", {"protocolVersion": 1})
        assert "agentCapabilities" not in (await client.receive())["result"]


WRITER = """
import sys
from acp_protocol.runtime.session_store import SessionStore
store = SessionStore(sys.argv[1])
for i in range(int(sys.argv[3])):
    store.change("shared", meta={f"{sys.argv[2]}-{i}": i})
store.close()
"""


def test_two_processes_sharing_a_sqlite_store_lose_no_acknowledged_change(tmp_path: Path) -> None:
    """Each change is read, merged and written in one `BEGIN IMMEDIATE` transaction: two times
    1,000 `_meta` changes from two processes at once all survive and none fails (1,448 of 4,000
    were lost when the read was outside the write; "database is locked" escaped in 3 of 4 runs
    of 2 x 2,000 while SQLite's own busy handler waited in 100 ms sleeps)."""
    path = tmp_path / "shared.db"
    SessionStore(path).create("shared", "/w")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, "1000"], stderr=subprocess.PIPE
        )
        for name in ("a", "b")
    ]
    errors = [w.communicate(timeout=300)[1].decode() for w in writers]
    assert [w.returncode for w in writers] == [0, 0], errors
    meta = SessionStore(path).get("shared").meta  # type: ignore[union-attr]
    assert meta is not None and len(meta) == 2000


OPENER = """
import sys
from acp_protocol.runtime.session_store import SessionStore
SessionStore(sys.argv[1]).create(sys.argv[2], "/w")
"""


def test_processes_creating_one_new_store_at_once_all_open_it(tmp_path: Path) -> None:
    """A new store is made whole in a temporary file and linked into place: a process that
    opens the path meanwhile never finds it half made (empty, or without its tables)."""
    for attempt in range(5):
        path = tmp_path / f"new-{attempt}.db"
        openers = [
            subprocess.Popen(
                [sys.executable, "-c", OPENER, str(path), f"s{n}"], stderr=subprocess.PIPE
            )
            for n in range(4)
        ]
        errors = [o.communicate(timeout=60)[1].decode() for o in openers]
        assert [o.returncode for o in openers] == [0, 0, 0, 0], errors
        listed = SessionStore(path).list_sessions()["sessions"]
        assert sorted(s["sessionId"] for s in listed) == ["s0", "s1", "s2", "s3"]
    assert sorted(p.name for p in tmp_path.iterdir() if ".tmp" in p.name) == []


def test_a_store_of_an_unknown_format_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SessionStore(path).close()
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("UPDATE acp_session_store SET value = 'acp-codegen-session-store/99'")
        db.execute("PRAGMA journal_mode=DELETE")
    before = path.read_bytes()
    with pytest.raises(SessionStoreError, match="unknown store format"):
        SessionStore(path)
    assert path.read_bytes() == before


async def test_a_store_busy_with_another_process_does_not_stall_the_event_loop(
    tmp_path: Path,
) -> None:
    """The `a…` methods run a SQLite store's calls in a worker thread: while another connection
    holds the write lock, the loop goes on, and the change lands once the lock is free."""
    path = tmp_path / "busy.db"
    store = SessionStore(path)
    await store.acreate("s", "/w")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    change = asyncio.create_task(store.achange("s", title="late"))
    ticks = 0
    for _ in range(20):
        await asyncio.sleep(0.01)
        ticks += 1
    assert not change.done() and ticks == 20
    holder.execute("ROLLBACK")
    holder.close()
    assert await asyncio.wait_for(change, 5) is not None
    assert (await store.aget("s")).title == "late"  # type: ignore[union-attr]
    assert (await store.alist_sessions())["sessions"][0]["title"] == "late"
    store.close()


@pytest.mark.parametrize("content", [b"", b"SQLite format 3\x00"])
def test_an_empty_or_foreign_file_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "store.db"
    if content:
        sqlite3.connect(path).close()  # a real SQLite file with no table of ours
        path.write_bytes(path.read_bytes())
    else:
        path.write_bytes(b"")
    before = path.read_bytes()
    with pytest.raises(SessionStoreError):
        SessionStore(path)
    assert path.read_bytes() == before


def test_a_locked_database_surfaces_as_a_session_store_error(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = SessionStore(path, busy_timeout=0.1)
    store.create("s", "/w")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SessionStoreError, match="locked"):
            store.change("s", title="t")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.change("s", title="t") is not None


def test_the_client_mirror_enforces_the_agent_side_guards(store: SessionStore) -> None:
    """A peer's 5,000,000-character title is cut to the limit; a `_meta` nested 2,000 deep is
    refused (no RecursionError) and the mirror is unchanged."""
    record = store.apply_update(
        "s", {"sessionUpdate": "session_info_update", "title": "t" * 5_000_000}
    )
    assert record is not None and record.title is not None and len(record.title) == 500
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(2000):
        node["x"] = {}
        node = node["x"]
    assert store.apply_update("s", {"sessionUpdate": "session_info_update", "_meta": deep}) is None
    assert store.get("s") == record


def test_a_store_in_a_folder_that_does_not_exist_is_a_store_error_naming_the_folder(
    tmp_path: Path,
) -> None:
    """Nothing is created (not even the folder): one `SessionStoreError` that names the missing
    folder, not the temporary file the store would have been made in."""
    folder = tmp_path / "missing"
    with pytest.raises(SessionStoreError) as raised:
        SessionStore(folder / "sessions.db")
    assert str(raised.value) == (
        f"{folder / 'sessions.db'}: cannot create the store: no folder {folder}"
    )
    assert not folder.exists()
