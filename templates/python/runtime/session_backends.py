"""Where a `SessionStore` keeps its records: in memory, or in a SQLite file that survives restarts.

Both keep sessions in the order they were first saved (the order `session/list` pages through).
SQLite writes are one transaction each, so a crash loses at most the write in flight; a file that
is not a database, or a database that is not a session store, is refused with `SessionStoreError`.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Protocol

FORMAT = "acp-codegen-session-store/1"
"""The format marker a SQLite store carries; any other database is refused."""


class SessionStoreError(Exception):
    """The store's file is unusable: corrupt, not SQLite, or another program's database."""


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One session as the store knows it; None: not set, or cleared."""

    session_id: str
    cwd: str
    title: str | None = None
    updated_at: str | None = None
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        """The `SessionInfo` object of `session/list`."""
        wire: dict[str, Any] = {"sessionId": self.session_id, "cwd": self.cwd}
        if self.title is not None:
            wire["title"] = self.title
        if self.updated_at is not None:
            wire["updatedAt"] = self.updated_at
        if self.meta is not None:
            wire["_meta"] = self.meta
        return wire


class SessionBackend(Protocol):
    def load(self, session_id: str) -> SessionRecord | None: ...

    def save(self, record: SessionRecord) -> None:
        """Insert or replace atomically; a session keeps its place in the order."""
        ...

    def page(self, cwd: str | None, after: int, limit: int) -> list[tuple[int, SessionRecord]]:
        """Up to `limit` (position, record) pairs after position `after`, in order."""
        ...

    def close(self) -> None: ...


@dataclass(slots=True)
class MemoryBackend:
    """Records in a dict; gone with the process."""

    _records: dict[str, tuple[int, SessionRecord]] = field(default_factory=dict)
    _next: int = 1

    def load(self, session_id: str) -> SessionRecord | None:
        found = self._records.get(session_id)
        return None if found is None else found[1]

    def save(self, record: SessionRecord) -> None:
        found = self._records.get(record.session_id)
        if found is None:
            found = (self._next, record)
            self._next += 1
        self._records[record.session_id] = (found[0], record)

    def page(self, cwd: str | None, after: int, limit: int) -> list[tuple[int, SessionRecord]]:
        # A dict keeps first-insertion order, which is position order: no sort needed.
        chosen = (
            (n, r) for n, r in self._records.values() if n > after and (cwd is None or r.cwd == cwd)
        )
        return list(itertools.islice(chosen, limit))

    def close(self) -> None:
        return None


_SCHEMA = (
    "CREATE TABLE acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE acp_sessions (position INTEGER PRIMARY KEY AUTOINCREMENT,"
    " session_id TEXT NOT NULL UNIQUE, cwd TEXT NOT NULL, title TEXT, updated_at TEXT, meta TEXT)",
)


class SqliteBackend:
    """Records in a SQLite file (the standard library's `sqlite3`)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._check_or_create()
        except sqlite3.DatabaseError as error:
            raise SessionStoreError(f"{self.path}: not a usable session store: {error}") from None

    def _check_or_create(self) -> None:
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if tables and "acp_session_store" not in tables:
            found = ", ".join(sorted(tables))
            raise SessionStoreError(f"{self.path}: a database of another program (tables: {found})")
        if not tables:
            with self._transaction():
                for statement in _SCHEMA:
                    self._db.execute(statement)
                self._db.execute("INSERT INTO acp_session_store VALUES ('format', ?)", (FORMAT,))
        row = self._db.execute(
            "SELECT value FROM acp_session_store WHERE key = 'format'"
        ).fetchone()
        if row is None or row[0] != FORMAT:
            raise SessionStoreError(f"{self.path}: unknown store format {row and row[0]!r}")

    def _transaction(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")
        return self._db  # its context manager commits, or rolls back on an exception

    def load(self, session_id: str) -> SessionRecord | None:
        row = self._db.execute(
            "SELECT session_id, cwd, title, updated_at, meta FROM acp_sessions"
            " WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        return None if row is None else _record(row)

    def save(self, record: SessionRecord) -> None:
        meta = None if record.meta is None else json.dumps(record.meta, sort_keys=True)
        values = (record.session_id, record.cwd, record.title, record.updated_at, meta)
        with self._transaction():
            self._db.execute(
                "INSERT INTO acp_sessions (session_id, cwd, title, updated_at, meta) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                "cwd = excluded.cwd, title = excluded.title, updated_at = excluded.updated_at, "
                "meta = excluded.meta",
                values,
            )

    def page(self, cwd: str | None, after: int, limit: int) -> list[tuple[int, SessionRecord]]:
        rows = self._db.execute(
            "SELECT position, session_id, cwd, title, updated_at, meta FROM acp_sessions "
            "WHERE position > ? AND (? IS NULL OR cwd = ?) ORDER BY position LIMIT ?",
            (after, cwd, cwd, limit),
        ).fetchall()
        return [(row[0], _record(row[1:])) for row in rows]

    def close(self) -> None:
        self._db.close()


def _record(row: tuple[Any, ...]) -> SessionRecord:
    session_id, cwd, title, updated_at, meta = row
    return SessionRecord(
        session_id, cwd, title, updated_at, None if meta is None else json.loads(meta)
    )
