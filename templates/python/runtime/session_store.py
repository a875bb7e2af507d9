"""A session store behind `session/list` and `session_info_update`, with two faces.

Layer: typed layer (a helper an agent sets on `Agent.session_store`).

Agent side: `new_session()` records a session under a fresh id (`create()` under the caller's);
`change()` applies a change and returns the `session_info_update` to send (only the changed
fields, `null` for cleared ones, `updatedAt` stamped in RFC 3339 UTC unless given);
`list_sessions()` answers `session/list` with cursor pagination. Client side: `apply_update()`
keeps the mirror of a session from the updates received, so a UI shows live titles without
polling.

In a handler, await the `a…` twins (`await store.achange(...)`, `anew_session`, `acreate`,
`aget`, `alist_sessions`, `aapply_update`): on a SQLite store they run in a worker thread, so a
store busy with another process never stalls the event loop; in memory they run inline. A
PostgreSQL store (`session_postgres.open_postgres_store`, the `postgres` extra) is asynchronous:
only its `a…` twins and `aclose()` work.

The `_meta` policy is one setting per store (see `session_info`): `"merge"`, `"replace"` or
`"patch"`; left unset, a store takes the policy of the edition whose agent it serves (v1 `"merge"`,
v2 `"patch"`, adopted when the agent is connected), and `"merge"` until then.

Guards: a title longer than `title_limit` (500, the RFD's advice) is truncated
before it is sent; a `_meta` whose JSON is over `meta_limit` bytes (64 KiB) is rejected with a
logged error and the session's stored state stays unchanged; a field of the wrong type in a
received update is dropped and the rest applies.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ParamSpec, TypeVar

from .behaviour import MetaPolicy
from .session_backends import AsyncSessionBackend, MemoryBackend, SessionBackend, SessionRecord
from .session_history import HISTORY_LIMIT, SessionHistory
from .session_info import META_POLICIES, SessionInfo, apply_session_info_update
from .session_limits import (
    META_LIMIT,
    TITLE_LIMIT,
    decode_cursor,
    encode_cursor,
    meta_fits,
)
from .session_sqlite import SqliteBackend

P = ParamSpec("P")
R = TypeVar("R")

UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()
"""A field `change()` leaves as it is (None would clear it)."""


def utc_now() -> str:
    """Now, as RFC 3339 UTC with a `Z` (`2026-11-21T12:00:00Z`)."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now.isoformat().replace("+00:00", "Z")


class SessionStore:
    """Sessions by id, in memory (`path=None`), in a SQLite file at `path`, or in a `backend`
    given (the PostgreSQL one: `session_postgres.open_postgres_store`)."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        policy: MetaPolicy | None = None,
        title_limit: int = TITLE_LIMIT,
        meta_limit: int = META_LIMIT,
        page_size: int = 50,
        clock: Callable[[], str] = utc_now,
        busy_timeout: float = 10.0,
        backend: SessionBackend | AsyncSessionBackend | None = None,
        history_limit: int = HISTORY_LIMIT,
    ) -> None:
        if policy is not None and policy not in META_POLICIES:
            raise ValueError(f"unknown _meta policy {policy!r}: one of {', '.join(META_POLICIES)}")
        if backend is None:
            backend = (
                MemoryBackend() if path is None else SqliteBackend(path, busy_timeout=busy_timeout)
            )
        self._async: AsyncSessionBackend | None = (
            backend if getattr(backend, "asynchronous", False) else None  # type: ignore[assignment]
        )
        self._backend = backend
        self.policy: MetaPolicy = policy or "merge"
        self._policy_chosen = policy is not None
        self.title_limit = title_limit
        self.meta_limit = meta_limit
        self.page_size = page_size
        self._clock = clock
        self.history = SessionHistory(self, history_limit)
        """The updates sent in each session, for `session/load` (`session_history`)."""

    def adopt_policy(self, policy: MetaPolicy | None) -> None:
        """Take an edition's `_meta` policy, unless one was chosen when the store was made."""
        if policy is not None and not self._policy_chosen:
            self.policy = policy

    @property
    def backend(self) -> SessionBackend:
        """The synchronous backend; an asynchronous one (PostgreSQL) answers only `a…` calls."""
        if self._async is not None:
            raise TypeError(
                "this session store is asynchronous (PostgreSQL): await its a… methods"
                " (achange, acreate, alist_sessions, aclose, …)"
            )
        return self._backend  # type: ignore[return-value]

    def close(self) -> None:
        self.backend.close()

    async def aclose(self) -> None:
        """`close`, for every store (an asynchronous one closes its pool)."""
        if self._async is not None:
            await self._async.aclose()
        else:
            self.backend.close()

    def get(self, session_id: str) -> SessionRecord | None:
        return self.backend.load(session_id)

    # -- agent side ---------------------------------------------------------------------------

    def new_session(self, cwd: str, *, title: str | None = None) -> SessionRecord:
        """Record a session under a new id (`sess_` + a random UUID) that this store has never
        handed out, so ids never repeat across processes or restarts of a persistent store."""
        while True:
            record = self._fresh(cwd, title)
            if self.backend.insert(record):
                return record

    def _fresh(self, cwd: str, title: str | None) -> SessionRecord:
        return SessionRecord(f"sess_{uuid.uuid4().hex}", cwd, self._title(title), self._clock())

    def create(self, session_id: str, cwd: str, *, title: str | None = None) -> SessionRecord:
        """Record a new session (or return the one recorded under that id)."""
        record = SessionRecord(session_id, cwd, self._title(title), self._clock())
        stored = self.backend.update(session_id, lambda found: found or record)
        assert stored is not None
        return stored

    def change(
        self,
        session_id: str,
        *,
        title: str | None = UNSET,
        meta: Mapping[str, Any] | None = UNSET,
        updated_at: str | None = UNSET,
    ) -> dict[str, Any] | None:
        """Apply a change; the `session_info_update` to send, or None when nothing changed or
        the change was rejected (logged). UNSET leaves a field; None clears it."""
        apply, sent = self._change_plan(session_id, title, meta, updated_at)
        # Read, compute and write in one transaction: a change from another process in between
        # can neither be lost nor make this one send a stale update.
        self.backend.update(session_id, apply)
        return {"sessionUpdate": "session_info_update", **sent} if sent else None

    def _change_plan(
        self,
        session_id: str,
        title: str | None,
        meta: Mapping[str, Any] | None,
        updated_at: str | None,
    ) -> tuple[Callable[[SessionRecord | None], SessionRecord | None], dict[str, Any]]:
        """The backend's `change` for `change()`, and the fields it fills with what to send
        (emptied first: a backend may apply it again to what another process wrote)."""
        sent: dict[str, Any] = {}

        def apply(stored: SessionRecord | None) -> SessionRecord | None:
            sent.clear()
            if stored is None:
                raise KeyError(f"unknown session {session_id!r}: create() it first")
            update = self._changed_fields(stored, title, meta, updated_at)
            after = None if update is None else self._applied(stored, update)
            if after is None or update is None:
                return stored
            sent.update(update)
            return after

        return apply, sent

    def _changed_fields(
        self,
        stored: SessionRecord,
        title: str | None,
        meta: Mapping[str, Any] | None,
        updated_at: str | None,
    ) -> dict[str, Any] | None:
        """The `session_info_update` fields of a change (None: nothing to send)."""
        update: dict[str, Any] = {}
        if title is not UNSET and self._title(title) != stored.title:
            update["title"] = self._title(title)
        if meta is not UNSET:
            if meta is not None and not meta_fits(stored.session_id, meta, self.meta_limit):
                return None
            patch = {"_meta": None if meta is None else dict(meta)}
            info = SessionInfo(meta=stored.meta)
            if apply_session_info_update(info, patch, self.policy).meta != stored.meta:
                update.update(patch)
        if updated_at is not UNSET:
            if updated_at != stored.updated_at:
                update["updatedAt"] = updated_at
        elif update:
            update["updatedAt"] = self._clock()
        return update or None

    def list_sessions(self, cwd: str | None = None, cursor: str | None = None) -> dict[str, Any]:
        """A `ListSessionsResponse` (wire form): one page, and `nextCursor` when more follow."""
        after = decode_cursor(cursor)
        return self._page(self.backend.page(cwd, after, self.page_size + 1))

    def _page(self, page: list[tuple[int, SessionRecord]]) -> dict[str, Any]:
        """A `ListSessionsResponse` from up to `page_size + 1` records."""
        response: dict[str, Any] = {
            "sessions": [record.to_wire() for _, record in page[: self.page_size]]
        }
        if len(page) > self.page_size:
            response["nextCursor"] = encode_cursor(page[self.page_size - 1][0])
        return response

    # -- client side --------------------------------------------------------------------------

    def apply_update(self, session_id: str, update: Mapping[str, Any]) -> SessionRecord | None:
        """The mirror of `session_id` after a received `session_info_update` (its wire form).

        A session not recorded yet is recorded (with an empty `cwd` until `create` gives one).
        """
        plan = self._update_plan(session_id, update)
        if plan is None:
            return None
        apply, applied = plan
        self.backend.update(session_id, apply)
        return applied[0] if applied else None

    def _update_plan(
        self, session_id: str, update: Mapping[str, Any]
    ) -> tuple[Callable[[SessionRecord | None], SessionRecord | None], list[SessionRecord]] | None:
        """The backend's `change` for `apply_update()` and the list it leaves the result in;
        None when the update is rejected before any read."""
        if isinstance(update.get("_meta"), Mapping) and not meta_fits(
            session_id, update["_meta"], self.meta_limit
        ):
            return None
        if isinstance(update.get("title"), str):  # the agent side's guard, kept here too
            update = {**update, "title": self._title(update["title"])}
        applied: list[SessionRecord] = []

        def apply(stored: SessionRecord | None) -> SessionRecord | None:
            applied.clear()
            after = self._applied(stored or SessionRecord(session_id, ""), update)
            if after is not None:
                applied.append(after)
            return after if after is not None else stored

        return apply, applied

    # -- off the event loop -------------------------------------------------------------------

    async def _off_loop(self, call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        if self.backend.blocking:
            return await asyncio.to_thread(call, *args, **kwargs)
        return call(*args, **kwargs)

    async def aget(self, session_id: str) -> SessionRecord | None:
        """`get`, off the event loop on a SQLite store."""
        if self._async is not None:
            return await self._async.aload(session_id)
        return await self._off_loop(self.get, session_id)

    async def anew_session(self, cwd: str, *, title: str | None = None) -> SessionRecord:
        """`new_session`, off the event loop on a SQLite store."""
        if self._async is not None:
            while True:
                record = self._fresh(cwd, title)
                if await self._async.ainsert(record):
                    return record
        return await self._off_loop(self.new_session, cwd, title=title)

    async def acreate(
        self, session_id: str, cwd: str, *, title: str | None = None
    ) -> SessionRecord:
        """`create`, off the event loop on a SQLite store."""
        if self._async is not None:
            record = SessionRecord(session_id, cwd, self._title(title), self._clock())
            stored = await self._async.aupdate(session_id, lambda found: found or record)
            assert stored is not None
            return stored
        return await self._off_loop(self.create, session_id, cwd, title=title)

    async def achange(
        self,
        session_id: str,
        *,
        title: str | None = UNSET,
        meta: Mapping[str, Any] | None = UNSET,
        updated_at: str | None = UNSET,
    ) -> dict[str, Any] | None:
        """`change`, off the event loop on a SQLite store."""
        if self._async is not None:
            apply, sent = self._change_plan(session_id, title, meta, updated_at)
            await self._async.aupdate(session_id, apply)
            return {"sessionUpdate": "session_info_update", **sent} if sent else None
        return await self._off_loop(
            self.change, session_id, title=title, meta=meta, updated_at=updated_at
        )

    async def alist_sessions(
        self, cwd: str | None = None, cursor: str | None = None
    ) -> dict[str, Any]:
        """`list_sessions`, off the event loop on a SQLite store."""
        if self._async is not None:
            after = decode_cursor(cursor)
            return self._page(await self._async.apage(cwd, after, self.page_size + 1))
        return await self._off_loop(self.list_sessions, cwd, cursor)

    async def aapply_update(
        self, session_id: str, update: Mapping[str, Any]
    ) -> SessionRecord | None:
        """`apply_update`, off the event loop on a SQLite store."""
        if self._async is not None:
            plan = self._update_plan(session_id, update)
            if plan is None:
                return None
            await self._async.aupdate(session_id, plan[0])
            return plan[1][0] if plan[1] else None
        return await self._off_loop(self.apply_update, session_id, update)

    # -- internals ----------------------------------------------------------------------------

    def _title(self, title: str | None) -> str | None:
        # "Agents should validate title length (recommend 500 chars max)" (session-info RFD).
        return title if title is None else title[: self.title_limit]

    def _applied(self, stored: SessionRecord, update: Mapping[str, Any]) -> SessionRecord | None:
        """`stored` with `update` applied; None when the result breaks a guard."""
        info = SessionInfo(stored.title, stored.updated_at, stored.meta)
        after = apply_session_info_update(info, update, self.policy)
        if after.meta is not None and not meta_fits(stored.session_id, after.meta, self.meta_limit):
            return None
        return replace(stored, title=after.title, updated_at=after.updated_at, meta=after.meta)
