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
