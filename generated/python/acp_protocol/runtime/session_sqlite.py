# Copied by acp-codegen from templates/python/runtime/session_sqlite.py. Do not edit here:
# edit the source, then run `make generate`.

"""A `SessionStore`'s records in a SQLite file that survives restarts (the standard library's
`sqlite3`), shareable between processes.

Layer: typed layer (storage of `SessionStore`; the record and the backend protocols are in
session_backends.py).

Sessions are kept in the order they were first saved (the order `session/list` pages through).
A change is read, computed and written in one step (`update`): on SQLite one `BEGIN IMMEDIATE`
transaction with the read inside it, so two processes sharing a file never lose each other's
acknowledged changes; a busy database is waited for (`busy_timeout`), WAL lets readers go on.
A file that is empty, not a database, another program's database or a store of another format
is refused untouched (its format is read before anything is written), and every SQLite error
surfaces as `SessionStoreError`. A new store is built in a temporary file and linked into place
whole, so a process opening it meanwhile never sees it half made. A writer blocked by another
process waits up to `busy_timeout` seconds, also where SQLite answers "database is locked"
without waiting (WAL: a reader racing a checkpoint). One connection per backend, used by one
thread at a time: `SessionStore`'s `a…` methods run the calls in a worker thread, off the event
loop (`blocking` says a backend wants that).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .session_backends import Change, SessionRecord, SessionStoreError
from .session_history import Replay, sqlite_append, sqlite_migrate, sqlite_read, sqlite_version

T = TypeVar("T")

_BUSY = ("database is locked", "database table is locked")
"""SQLite's messages for SQLITE_BUSY and SQLITE_LOCKED (Python 3.10 has no error codes on its
exceptions): another connection holds the database; wait and try again."""

FORMAT = "acp-codegen-session-store/1"
"""The format marker a SQLite store carries; any other database is refused."""

SCHEMA_VERSION = 2
"""The newest schema of a SQLite store (the `version` row; none: 1). Version 2 adds the updates
`session/load` replays (`session_history`); a store of version 1 is migrated when opened."""


_SCHEMA = (
    "CREATE TABLE acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE acp_sessions (position INTEGER PRIMARY KEY AUTOINCREMENT,"
    " session_id TEXT NOT NULL UNIQUE, cwd TEXT NOT NULL, title TEXT, updated_at TEXT, meta TEXT)",
)


class SqliteBackend:
    """Records in a SQLite file (the standard library's `sqlite3`), shareable between processes."""

    blocking = True

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 10.0) -> None:
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        self._lock = threading.Lock()  # one thread at a time on the connection
        if not os.path.exists(self.path):
            _create(self.path)
        if os.path.getsize(self.path) == 0:
            raise SessionStoreError(f"{self.path}: an empty file, not a session store")
        try:
            # timeout=0: SQLite's busy handler off, `_retrying` waits instead.
            self._db = sqlite3.connect(
                self.path, timeout=0, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: cannot open: {error}") from None
        try:
            self._retrying(self._check)
        except (sqlite3.Error, SessionStoreError) as error:
            self._db.close()
            if isinstance(error, SessionStoreError):
                raise
            raise SessionStoreError(f"{self.path}: not a usable session store: {error}") from None

    def _check(self) -> None:
        """Refuse another program's database or another format, before writing anything."""
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if "acp_session_store" not in tables:
            found = ", ".join(sorted(tables)) or "none"
            raise SessionStoreError(f"{self.path}: a database of another program (tables: {found})")
        row = self._db.execute(
            "SELECT value FROM acp_session_store WHERE key = 'format'"
        ).fetchone()
        if row is None or row[0] != FORMAT:
            raise SessionStoreError(f"{self.path}: unknown store format {row and row[0]!r}")
        if self._db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            self._db.execute("PRAGMA journal_mode=WAL")  # a store made before WAL was the default
        if self._version() < SCHEMA_VERSION:
            with self._transaction():
                if self._version() < SCHEMA_VERSION:  # again, now alone: once per store
                    sqlite_migrate(self._db, SCHEMA_VERSION)

    def _version(self) -> int:
        """The store's schema version; one newer than this runtime's is refused, untouched."""
        version = sqlite_version(self._db)
        if version is None or version > SCHEMA_VERSION:
            raise SessionStoreError(
                f"{self.path}: session store schema version {version} is newer than this"
                f" runtime's ({SCHEMA_VERSION}): upgrade acp-protocol-sdk, or use another file"
            )
        return version

    def _retrying(self, attempt: Callable[[], T]) -> T:
        """`attempt()`, tried again every millisecond or so while the database is busy, for up
        to `busy_timeout` seconds. SQLite's own busy handler backs off to 100 ms sleeps, and a
        process that writes in a loop holds the write lock nearly all the time: the waiter kept
        missing the short free moments and gave up ("database is locked"). Polling often finds
        them."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                return attempt()
            except sqlite3.OperationalError as error:
                if not str(error).startswith(_BUSY) or time.monotonic() > deadline:
                    raise
            time.sleep(0.0005 + random.random() * 0.001)  # jitter: two waiters do not align

    def _begin(self) -> None:
        """`BEGIN IMMEDIATE`: the write lock, waited for up to `busy_timeout`."""
        self._retrying(lambda: self._db.execute("BEGIN IMMEDIATE"))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """`BEGIN IMMEDIATE` (the write lock first, so the read inside is the one written over),
        commit, or roll back on any exception; SQLite errors become `SessionStoreError`."""
        self._lock.acquire()
        try:
            self._begin()
        except sqlite3.Error as error:
            self._lock.release()
            raise SessionStoreError(f"{self.path}: {error}") from None
        try:
            yield self._db
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            self._lock.release()
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise SessionStoreError(f"{self.path}: {error}") from None
        finally:
            self._lock.release()

    def _select(self, session_id: str) -> SessionRecord | None:
        row = self._db.execute(
            "SELECT session_id, cwd, title, updated_at, meta FROM acp_sessions"
            " WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        return None if row is None else _record(row)

    def load(self, session_id: str) -> SessionRecord | None:
        try:
            with self._lock:
                return self._retrying(lambda: self._select(session_id))
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: {error}") from None

    def insert(self, record: SessionRecord) -> bool:
        try:
            with self._transaction():
                cursor = self._db.execute(
                    "INSERT INTO acp_sessions (session_id, cwd, title, updated_at, meta) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
                    _values(record),
                )
                return cursor.rowcount == 1
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: {error}") from None

    def update(self, session_id: str, change: Change) -> SessionRecord | None:
        try:
            with self._transaction():
                stored = self._select(session_id)
                after = change(stored)
                if after is None or after is stored:
                    return stored
                self._db.execute(
                    "INSERT INTO acp_sessions (session_id, cwd, title, updated_at, meta) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                    "cwd = excluded.cwd, title = excluded.title, "
                    "updated_at = excluded.updated_at, meta = excluded.meta",
                    _values(after),
                )
                return after
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: {error}") from None

    def append_updates(self, session_id: str, bodies: Sequence[str], keep: int) -> None:
        try:
            with self._transaction():
                sqlite_append(self._db, session_id, bodies, keep)
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: {error}") from None

    def read_updates(self, session_id: str) -> Replay:
        try:
            with self._lock:
                return self._retrying(lambda: sqlite_read(self._db, session_id))
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: {error}") from None

    def page(self, cwd: str | None, after: int, limit: int) -> list[tuple[int, SessionRecord]]:
        try:
            with self._lock:
                rows = self._retrying(
                    lambda: self._db.execute(
                        "SELECT position, session_id, cwd, title, updated_at, meta"
                        " FROM acp_sessions WHERE position > ? AND (? IS NULL OR cwd = ?)"
                        " ORDER BY position LIMIT ?",
                        (after, cwd, cwd, limit),
                    ).fetchall()
                )
        except sqlite3.Error as error:
            raise SessionStoreError(f"{self.path}: {error}") from None
        return [(row[0], _record(row[1:])) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _create(path: str) -> None:
    """A new, empty store at `path`, made whole in a temporary file beside it and linked into
    place; if another process linked its own first, that one is kept."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".acp-store-", suffix=".tmp", dir=folder)
    except FileNotFoundError:
        raise SessionStoreError(f"{path}: cannot create the store: no folder {folder}") from None
    except OSError as error:  # a folder this process may not write in, or not a folder
        raise SessionStoreError(
            f"{path}: cannot create the store in {folder}: {error.strerror}"
        ) from None
    os.close(handle)
    os.unlink(temporary)  # SQLite makes the file itself
    try:
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("INSERT INTO acp_session_store VALUES ('format', ?)", (FORMAT,))
            sqlite_migrate(db, SCHEMA_VERSION)
            db.execute("COMMIT")
        finally:
            db.close()  # checkpoints the WAL into the file and removes it
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    except (sqlite3.Error, OSError) as error:
        raise SessionStoreError(f"{path}: cannot create the store: {error}") from None
    finally:
        for leftover in (temporary, temporary + "-wal", temporary + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def _values(record: SessionRecord) -> tuple[Any, ...]:
    meta = None if record.meta is None else json.dumps(record.meta, sort_keys=True)
    return (record.session_id, record.cwd, record.title, record.updated_at, meta)


def _record(row: tuple[Any, ...]) -> SessionRecord:
    session_id, cwd, title, updated_at, meta = row
    return SessionRecord(
        session_id, cwd, title, updated_at, None if meta is None else json.loads(meta)
    )
