"""The session store (`acp_protocol.runtime.session_store`), on both backends, and its wiring."""

from __future__ import annotations

import itertools
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import InvalidParams, memory_pair
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
