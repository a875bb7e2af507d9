"""Where a `SessionStore` keeps its records: the record, the backend protocols and the
in-memory backend; the SQLite file that survives restarts is session_sqlite.py, PostgreSQL
(shared by several machines) session_postgres.py.

Layer: typed layer (storage of `SessionStore`).

Every backend keeps sessions in the order they were first saved (the order `session/list` pages
through) and applies a change as one step (`update`: read, compute, write), so two processes
sharing a store never lose each other's acknowledged changes. `blocking` says a backend wants
`SessionStore`'s `a…` methods to run its calls in a worker thread, off the event loop.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .session_history import MemoryHistory, Replay


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


Change = Callable[[SessionRecord | None], SessionRecord | None]
"""Given the stored record (None: unknown), the record to store; the same object (or None)
means: write nothing."""


class SessionBackend(Protocol):
    def load(self, session_id: str) -> SessionRecord | None: ...

    def insert(self, record: SessionRecord) -> bool:
        """Record a new session; False, and nothing written, when its id is taken."""
        ...

    def update(self, session_id: str, change: Change) -> SessionRecord | None:
        """Atomically read `session_id`, apply `change`, write its result; returns what is
        stored afterwards. An exception in `change` writes nothing."""
        ...

    def page(self, cwd: str | None, after: int, limit: int) -> list[tuple[int, SessionRecord]]:
        """Up to `limit` (position, record) pairs after position `after`, in order."""
        ...

    def close(self) -> None: ...

    @property
    def blocking(self) -> bool:
        """Whether a call may wait on I/O or on another process (run it off the event loop)."""
        ...


class AsyncSessionBackend(Protocol):
    """A backend whose calls are awaited (PostgreSQL: `session_postgres.PostgresBackend`), with
    the meaning of `SessionBackend`'s; `update` may apply `change` more than once (to what
    another process wrote meanwhile) and stores the result of the last."""

    asynchronous: bool

    async def aload(self, session_id: str) -> SessionRecord | None: ...

    async def ainsert(self, record: SessionRecord) -> bool: ...

    async def aupdate(self, session_id: str, change: Change) -> SessionRecord | None: ...

    async def apage(
        self, cwd: str | None, after: int, limit: int
    ) -> list[tuple[int, SessionRecord]]: ...

    async def aclose(self) -> None: ...


@dataclass(slots=True)
class MemoryBackend:
    """Records in a dict; gone with the process."""

    blocking = False

    _records: dict[str, tuple[int, SessionRecord]] = field(default_factory=dict)
    _next: int = 1
    _history: MemoryHistory = field(default_factory=MemoryHistory)

    def append_updates(self, session_id: str, bodies: Sequence[str], keep: int) -> None:
        self._history.append_updates(session_id, bodies, keep)

    def read_updates(self, session_id: str) -> Replay:
        return self._history.read_updates(session_id)

    def load(self, session_id: str) -> SessionRecord | None:
        found = self._records.get(session_id)
        return None if found is None else found[1]

    def insert(self, record: SessionRecord) -> bool:
        if record.session_id in self._records:
            return False
        self._records[record.session_id] = (self._next, record)
        self._next += 1
        return True

    def update(self, session_id: str, change: Change) -> SessionRecord | None:
        found = self._records.get(session_id)
        stored = None if found is None else found[1]
        after = change(stored)
        if after is None or after is stored:
            return stored
        if found is None:
            self.insert(after)
        else:
            self._records[session_id] = (found[0], after)
        return after

    def page(self, cwd: str | None, after: int, limit: int) -> list[tuple[int, SessionRecord]]:
        # A dict keeps first-insertion order, which is position order: no sort needed.
        chosen = (
            (n, r) for n, r in self._records.values() if n > after and (cwd is None or r.cwd == cwd)
        )
        return list(itertools.islice(chosen, limit))

    def close(self) -> None:
        return None


# The SQLite backend's names, where earlier versions had them (session_sqlite.py imports the
# names above, which exist by now).
from .session_sqlite import FORMAT, SCHEMA_VERSION, SqliteBackend  # noqa: E402

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "AsyncSessionBackend",
    "Change",
    "MemoryBackend",
    "SessionBackend",
    "SessionRecord",
    "SessionStoreError",
    "SqliteBackend",
]
