"""What a session needs to move between server processes: the updates the agent sent, in order.

Layer: typed layer (storage of `SessionStore`, beside its records).

`session/load` must replay the whole conversation ("The Agent MUST replay the entire
conversation to the Client in the form of `session/update` notifications", ACP v1
`session-setup.mdx`); a process that did not run the session has only what the store kept. An
agent with a `session_store` has each `session/update` it sends recorded here by the runtime
(`session_replay`), written before the turn's answer, so any process sharing the store answers
`session/load` and `session/resume` for it.

Bounded: each session keeps its last `limit` updates (`HISTORY_LIMIT`, 1,000, unless the store
was given `history_limit`); older ones are deleted as new ones come, and a replay says how many
it no longer has (`Replay.dropped`, reported in `session/load`'s `_meta`). Updates are numbered
per session (`seq` from 1), so the number dropped is the first kept one's minus one.

The tables are the same in SQLite and PostgreSQL: `acp_session_updates (session_id, seq, body)`,
`body` the update's JSON; added by schema version 2 of either store.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .session_store import SessionStore

HISTORY_LIMIT = 1000
"""Updates kept per session unless the store says otherwise (`SessionStore(history_limit=…)`)."""

TABLE = (
    "CREATE TABLE {schema}acp_session_updates (session_id TEXT NOT NULL, seq BIGINT NOT NULL,"
    " body TEXT NOT NULL, PRIMARY KEY (session_id, seq))"
)
"""The updates table of schema version 2 (`{schema}`: `"name".` on PostgreSQL, empty on SQLite)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A session's kept updates, oldest first; `dropped`: how many older ones the cap removed."""

    updates: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0


def encode(updates: Sequence[Mapping[str, Any]]) -> list[str]:
    return [json.dumps(update, separators=(",", ":"), ensure_ascii=False) for update in updates]


def replay(rows: Sequence[tuple[int, str]]) -> Replay:
    """A `Replay` from (seq, body) rows in seq order."""
    if not rows:
        return Replay()
    return Replay([json.loads(body) for _, body in rows], rows[0][0] - 1)


@dataclass(slots=True)
class MemoryHistory:
    """The updates of a memory store: gone with the process."""

    _sessions: dict[str, tuple[int, deque[str]]] = field(default_factory=dict)

    def append_updates(self, session_id: str, bodies: Sequence[str], keep: int) -> None:
        sent, kept = self._sessions.get(session_id, (0, deque(maxlen=keep)))
        kept.extend(bodies)
        self._sessions[session_id] = (sent + len(bodies), kept)

    def read_updates(self, session_id: str) -> Replay:
        sent, kept = self._sessions.get(session_id, (0, deque()))
        first = sent - len(kept) + 1
        return replay([(first + n, body) for n, body in enumerate(kept)])


def sqlite_append(
    db: sqlite3.Connection, session_id: str, bodies: Sequence[str], keep: int
) -> None:
    """Append in a transaction the caller holds (`BEGIN IMMEDIATE`: no other writer between the
    read of the last number and the insert)."""
    last = db.execute(
        "SELECT coalesce(max(seq), 0) FROM acp_session_updates WHERE session_id = ?",
        (session_id,),
    ).fetchone()[0]
    db.executemany(
        "INSERT INTO acp_session_updates (session_id, seq, body) VALUES (?, ?, ?)",
        [(session_id, last + n, body) for n, body in enumerate(bodies, 1)],
    )
    db.execute(
        "DELETE FROM acp_session_updates WHERE session_id = ? AND seq <= ?",
        (session_id, last + len(bodies) - keep),
    )


def sqlite_version(db: sqlite3.Connection) -> int | None:
    """A SQLite store's schema version (no `version` row: 1; None: not a number)."""
    row = db.execute("SELECT value FROM acp_session_store WHERE key = 'version'").fetchone()
    if row is None:
        return 1
    return int(row[0]) if str(row[0]).isdigit() else None


def sqlite_migrate(db: sqlite3.Connection, version: int) -> None:
    """Version 1 to 2, in the caller's transaction: the updates table, then the version row."""
    db.execute(TABLE.replace("{schema}", ""))
    db.execute("INSERT OR REPLACE INTO acp_session_store VALUES ('version', ?)", (str(version),))


def sqlite_read(db: sqlite3.Connection, session_id: str) -> Replay:
    rows = db.execute(
        "SELECT seq, body FROM acp_session_updates WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()
    return replay(rows)


class SessionHistory:
    """The recorded updates of a store's sessions (`store.history`): `await arecord(id, updates)`
    appends (returns after the write is committed), `await aread(id)` gives the `Replay`."""

    def __init__(self, store: SessionStore, limit: int = HISTORY_LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"history_limit must keep at least one update, not {limit}")
        self._store = store
        self.limit = limit

    async def arecord(self, session_id: str, updates: Sequence[Mapping[str, Any]]) -> None:
        if not updates:
            return
        bodies = encode(updates)
        backend: Any = self._store._async or self._store.backend
        if getattr(backend, "asynchronous", False):
            await backend.aappend_updates(session_id, bodies, self.limit)
        elif backend.blocking:
            await asyncio.to_thread(backend.append_updates, session_id, bodies, self.limit)
        else:
            backend.append_updates(session_id, bodies, self.limit)

    async def aread(self, session_id: str) -> Replay:
        backend: Any = self._store._async or self._store.backend
        if getattr(backend, "asynchronous", False):
            found: Replay = await backend.aread_updates(session_id)
            return found
        if backend.blocking:
            found = await asyncio.to_thread(backend.read_updates, session_id)
            return found
        return backend.read_updates(session_id)  # type: ignore[no-any-return]
