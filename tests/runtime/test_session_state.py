"""The client-state corpus (tests/corpus/state/, README.md there) replayed on the Python runtime.

Each case is a fresh `ClientState` of the edition's generated table, fed the case's state
messages in order; after each one the changes it reports and the state's snapshot must equal the
line's, as JSON values. The TypeScript and Go runtimes replay the same files. The corpus covers
every `x-state` annotation of the pinned schemas (and every entry of v1's rule table): the list
comes from the IR, and an annotation without a case fails tests/generator/test_state_corpus.py
(this tier imports nothing of the generator: `make test-matrix` runs it on the package alone).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import groupby
from typing import Any

import pytest
from acp_protocol.runtime.client_state import ClientState
from acp_protocol.v1.state import STATE_TABLE as V1
from acp_protocol.v2.unstable.state import STATE_TABLE as V2_UNSTABLE

from tests.paths import ROOT

CORPUS = ROOT / "tests/corpus/state"
TABLES = {"v1": V1, "v2": V2_UNSTABLE}
"""Each file is replayed on its protocol's widest table (v2: the unstable schema's)."""


def steps(protocol: str) -> list[dict[str, Any]]:
    path = CORPUS / f"{protocol}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cases(protocol: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for name, group in groupby(steps(protocol), key=lambda step: step["case"]):
        yield name, list(group)


ALL = [(protocol, name, group) for protocol in TABLES for name, group in cases(protocol)]


@pytest.mark.parametrize(("protocol", "name", "group"), ALL, ids=[f"{p}: {n}" for p, n, _ in ALL])
def test_each_case_ends_each_step_with_the_corpus_state(
    protocol: str, name: str, group: list[dict[str, Any]]
) -> None:
    state = ClientState(TABLES[protocol])
    for index, step in enumerate(group):
        applied = state.apply(step["message"])
        changes = [change.to_json() for change in applied.changes]
        assert changes == step["changes"], f"step {index}: changes"
        assert state.snapshot() == step["expect"], f"step {index}: state"


@pytest.mark.parametrize(("protocol", "name", "group"), ALL, ids=[f"{p}: {n}" for p, n, _ in ALL])
def test_the_generic_path_alone_ends_each_step_with_the_same_state(
    protocol: str, name: str, group: list[dict[str, Any]]
) -> None:
    """The fast paths (`runtime/state_fast.py`) are shortcuts: without them, the same."""
    state = ClientState(TABLES[protocol], fast=False)
    for index, step in enumerate(group):
        changes = [change.to_json() for change in state.apply(step["message"]).changes]
        assert changes == step["changes"], f"step {index}: changes"
        assert state.snapshot() == step["expect"], f"step {index}: state"


@pytest.mark.parametrize(("protocol", "name", "group"), ALL, ids=[f"{p}: {n}" for p, n, _ in ALL])
def test_the_params_path_the_router_feeds_ends_each_step_with_the_same_state(
    protocol: str, name: str, group: list[dict[str, Any]]
) -> None:
    """`ClientState.applier(method)` (what the client's router calls with a message's params)
    does what `apply` does with the message made of the method and those params."""
    state = ClientState(TABLES[protocol])
    for index, step in enumerate(group):
        message = step["message"]
        if type(message) is dict and set(message) == {"method", "params"}:
            applied = state.applier(message["method"])(message["params"])
        else:
            applied = state.apply(message)
        changes = [change.to_json() for change in applied.changes]
        assert changes == step["changes"], f"step {index}: changes"
        assert state.snapshot() == step["expect"], f"step {index}: state"


def test_case_names_are_unique_per_file() -> None:
    for protocol in TABLES:
        names = [name for name, _ in cases(protocol)]
        assert len(names) == len(set(names)), protocol


def test_applying_never_raises_on_odd_messages() -> None:
    state = ClientState(TABLES["v2"])
    odd: list[Any] = [
        {},
        {"method": 3},
        {"method": "session/update"},
        {"method": "session/update", "params": None},
        {"method": "session/update", "params": {"sessionId": "s", "update": None}},
        {"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": 1}}},
        {"method": "session/update", "params": {"sessionId": 5, "update": {}}},
        {"method": "auth/status", "params": {}, "result": None},
    ]
    for message in odd:
        state.apply(message)
    feed = state.applier("session/update")  # the params alone, as the router gives them
    odd_params: list[Any] = [None, [], "s", {}, {"sessionId": "s", "update": []}, {"update": {}}]
    for params in odd_params:
        feed(params)
    for message in odd[3:7]:
        feed(message["params"])
    assert json.dumps(state.snapshot())  # still plain JSON


def test_a_snapshot_is_a_copy() -> None:
    state = ClientState(TABLES["v2"])
    message = {
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {"sessionUpdate": "plan_update", "plan": {"planId": "p", "entries": []}},
        },
    }
    state.apply(message)
    snapshot = state.snapshot()
    snapshot["sessions"]["s"]["targets"]["plan"][0]["value"]["entries"].append("x")
    assert state.session("s").entries("plan") == [{"planId": "p", "entries": []}]


def test_the_corpus_files_are_json_lines() -> None:
    for protocol in TABLES:
        for step in steps(protocol):
            assert set(step) == {"case", "message", "changes", "expect"}


def update(session_update: dict[str, Any]) -> dict[str, Any]:
    return {"method": "session/update", "params": {"sessionId": "s", "update": session_update}}


def chunk(message_id: str, text: str) -> dict[str, Any]:
    content = {"type": "text", "text": text}
    return update(
        {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": content}
    )


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "generic path"])
def test_an_entry_read_before_later_chunks_keeps_its_content(fast: bool) -> None:
    """The state grows its own list in place, but never one a reader was handed: `entries`, or
    an entry read later from the mapping `get` handed out."""
    state = ClientState(TABLES["v2"], fast=fast)
    given = [{"type": "text", "text": "a"}]
    message = {"sessionUpdate": "agent_message", "messageId": "m", "content": given}
    state.apply(update(message))
    state.apply(chunk("m", "b"))
    session = state.session("s")
    (held,) = session.entries("agentMessage")
    state.apply(chunk("m", "c"))
    state.apply(chunk("m", "d"))
    mapping = session.get("agentMessage")
    state.apply(chunk("m", "e"))
    from_mapping = mapping["m"]
    state.apply(chunk("m", "f"))
    assert [block["text"] for block in held["content"]] == ["a", "b"]
    assert [block["text"] for block in from_mapping["content"]] == list("abcde")
    (now,) = session.entries("agentMessage")
    assert [block["text"] for block in now["content"]] == list("abcdef")
    assert given == [{"type": "text", "text": "a"}]


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "generic path"])
def test_chunks_of_messages_and_tool_calls_interleaved_each_end_in_their_own_entry(
    fast: bool,
) -> None:
    state = ClientState(TABLES["v2"], fast=fast)
    given = [{"type": "text", "text": "u"}]
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": "Read"}
    state.apply(update({**tool, "content": given}))
    for word in "abc":
        state.apply(chunk("m1", word))
        state.apply(chunk("m2", word.upper()))
        content = {"type": "content", "content": {"type": "text", "text": word}}
        state.apply(
            update(
                {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t", "content": content}
            )
        )
    session = state.session("s")
    texts = ["".join(b["text"] for b in m["content"]) for m in session.entries("agentMessage")]
    assert texts == ["abc", "ABC"]
    assert len(session.entries("toolCall")[0]["content"]) == 4
    assert given == [{"type": "text", "text": "u"}]


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "generic path"])
def test_a_chunk_after_an_upsert_that_set_the_content_extends_the_new_content(fast: bool) -> None:
    """ "Omitted fields leave the existing value unchanged, `null` clears or unsets the value, and
    concrete values replace the previous value": a chunk after the upsert extends what the upsert
    left, never the list the chunks before it grew."""
    state = ClientState(TABLES["v2"], fast=fast)
    for word in "ab":
        state.apply(chunk("m", word))
    replaced = [{"type": "text", "text": "X"}]
    message = {"sessionUpdate": "agent_message", "messageId": "m", "content": replaced}
    state.apply(update(message))
    state.apply(chunk("m", "c"))
    cleared = {"sessionUpdate": "agent_message", "messageId": "m", "content": None}
    state.apply(chunk("m", "d"))
    state.apply(update(cleared))
    state.apply(chunk("m", "e"))
    untouched = {"sessionUpdate": "agent_message", "messageId": "m", "status": "done"}
    state.apply(update(untouched))
    state.apply(chunk("m", "f"))
    (entry,) = state.session("s").entries("agentMessage")
    assert [block["text"] for block in entry["content"]] == ["e", "f"]
    assert entry["status"] == "done"
    assert replaced == [{"type": "text", "text": "X"}]


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "generic path"])
@pytest.mark.parametrize("message", [[], [1, 2], None, "session/update", 7])
def test_apply_never_raises_on_a_message_that_is_not_an_object(fast: bool, message: Any) -> None:
    """ "`apply` never raises on a message": a list, a string or None changes nothing."""
    state = ClientState(TABLES["v2"], fast=fast)
    applied = state.apply(message)
    assert (applied.session, applied.changes, applied.logged) == (None, (), False)
    assert state.snapshot() == {"agent": EMPTY_SCOPE, "sessions": {}}


EMPTY_SCOPE: dict[str, Any] = {"targets": {}, "log": [], "problems": []}


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "generic path"])
def test_reading_a_session_no_message_touched_makes_nothing_appear(fast: bool) -> None:
    """ "A session appears once a message touched it": reading one (a mistyped id) does not;
    the state read is the one the session's first message then fills."""
    state = ClientState(TABLES["v2"], fast=fast)
    read_early = state.session("s")
    assert read_early.entries("agentMessage") == []
    assert state.session("s-typo").snapshot() == EMPTY_SCOPE
    assert state.snapshot() == {"agent": EMPTY_SCOPE, "sessions": {}}
    assert list(state.sessions) == []
    state.apply(chunk("m", "a"))
    state.apply(chunk("m", "b"))
    assert list(state.snapshot()["sessions"]) == ["s"]
    assert state.session("s") is read_early
    (message,) = read_early.entries("agentMessage")
    assert [block["text"] for block in message["content"]] == ["a", "b"]
