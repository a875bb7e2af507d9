"""The SQLite session store's file: restarts, files that are not its database, several processes
sharing one store, a store busy with another process, and its errors (one line naming the file)."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from acp_protocol.runtime.session_backends import SessionStoreError
from acp_protocol.runtime.session_store import SessionStore

from tests.runtime.test_session_store import clock


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
