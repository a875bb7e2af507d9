"""The store corpus (tests/corpus/session_store/cases.json) on every backend of the Python
runtime: memory, SQLite and PostgreSQL, the same cases and the same results (TypeScript and Go
replay the same file on theirs). Every case runs through the `a…` methods, the ones an agent's
handlers await and the only ones a PostgreSQL store has; "NOW" in a case is the store's clock."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import InvalidParams
from acp_protocol.runtime.session_backends import SessionRecord
from acp_protocol.runtime.session_resume import replay_wanted, replayed
from acp_protocol.runtime.session_store import UNSET, SessionStore
from acp_protocol.v2.behaviour import BEHAVIOUR as V2

CASES = json.loads(
    (Path(__file__).parents[1] / "corpus" / "session_store" / "cases.json").read_text("utf-8")
)
NOW = "2026-11-21T12:00:00Z"
OPTIONS = {
    "titleLimit": "title_limit",
    "metaLimit": "meta_limit",
    "pageSize": "page_size",
    "historyLimit": "history_limit",
}


class Opener:
    """Opens a store on one backend with a case's options (each case a store of its own), and
    opens it again where it keeps its sessions (`reopen`: the case's `{"reopen": true}`)."""

    def __init__(self, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        self.backend = request.param
        self.request = request
        self.tmp_path = tmp_path
        self.opened: list[SessionStore] = []
        self.place = uuid.uuid4().hex
        self.options: dict[str, Any] = {}

    async def open(self, **options: Any) -> SessionStore:
        self.options = options
        if self.backend == "memory":
            store = SessionStore(**options)
        elif self.backend == "sqlite":
            store = SessionStore(self.tmp_path / f"{self.place}.db", **options)
        else:
            pytest.importorskip("psycopg_pool", reason="the postgres extra (psycopg) is missing")
            from acp_protocol.runtime.session_postgres import open_postgres_store

            dsn = self.request.getfixturevalue("postgres")
            store = await open_postgres_store(dsn, schema=f"corpus_{self.place}", **options)
        self.opened.append(store)
        return store

    async def reopen(self, store: SessionStore) -> SessionStore:
        await store.aclose()
        self.opened.remove(store)
        return await self.open(**self.options)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    opener = Opener(request, tmp_path)
    yield opener
    for store in opener.opened:
        await store.aclose()


def wire(record: SessionRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "sessionId": record.session_id,
        "cwd": record.cwd,
        "title": record.title,
        "updatedAt": record.updated_at,
        "_meta": record.meta,
    }


def stamped(value: Any) -> Any:
    """The case's expected value with "NOW" read as the store's clock."""
    return json.loads(json.dumps(value).replace('"NOW"', json.dumps(NOW)))


V2_RESUME = V2.resume
"""ACP v2's `session/resume` rule (the generated edition's data): the `resume` steps."""


async def resumed(store: SessionStore, args: dict[str, Any]) -> list[Any]:
    """What a v2 `session/resume` with these params replays from the store before its current
    state update: nothing, or the history then `replay_complete` (-32602 for another cursor)."""
    assert V2_RESUME is not None
    params = {k: v for k, v in args.items() if k != "id"}
    if not replay_wanted(V2_RESUME, params):
        return []
    return replayed(V2_RESUME, (await store.history.aread(args["id"])).updates)


async def run_step(store: SessionStore, step: dict[str, Any], cursor: str | None) -> Any:
    """One step's outcome (and the next cursor, for a `list`)."""
    if "create" in step:
        args = step["create"]
        return wire(await store.acreate(args["id"], args["cwd"], title=args.get("title")))
    if "change" in step:
        args = step["change"]
        return await store.achange(
            args["id"],
            title=args.get("title", UNSET),
            meta=args.get("meta", UNSET),
            updated_at=stamped(args["updatedAt"]) if "updatedAt" in args else UNSET,
        )
    if "applyUpdate" in step:
        args = step["applyUpdate"]
        return wire(await store.aapply_update(args["id"], args["update"]))
    if "get" in step:
        return wire(await store.aget(step["get"]))
    if "record" in step:
        return await store.history.arecord(step["record"]["id"], step["record"]["updates"])
    if "replay" in step:
        replay = await store.history.aread(step["replay"])
        return {"updates": replay.updates, "dropped": replay.dropped}
    if "resume" in step:
        return await resumed(store, step["resume"])
    args = step["list"]
    given = args.get("cursor")
    return await store.alist_sessions(args.get("cwd"), cursor if given == "next" else given)


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
async def test_store_corpus_case(open_store: Opener, case: dict[str, Any]) -> None:
    reopens = any("reopen" in step for step in case["steps"])
    if reopens and open_store.backend == "memory":
        pytest.skip("a memory store is gone with its process: nothing to open again")
    options = {OPTIONS.get(key, key): value for key, value in case.get("options", {}).items()}
    store = await open_store.open(clock=lambda: NOW, **options)
    cursor: str | None = None
    for number, step in enumerate(case["steps"]):
        where = f"step {number}: {json.dumps(step)[:120]}"
        if "reopen" in step:
            store = await open_store.reopen(store)
            continue
        if "error" in step:
            expected = InvalidParams if step["error"] == -32602 else KeyError
            with pytest.raises(expected) as raised:
                await run_step(store, step, cursor)
            if isinstance(step["error"], str):
                assert step["error"] in str(raised.value), where
            continue
        outcome = await run_step(store, step, cursor)
        if "list" in step:
            assert [s["sessionId"] for s in outcome["sessions"]] == step["expect"], where
            assert ("nextCursor" in outcome) == step["more"], where
            if "sessions" in step:
                assert outcome["sessions"] == stamped(step["sessions"]), where
            cursor = outcome.get("nextCursor")
        elif "expect" in step:
            assert outcome == stamped(step["expect"]), where
