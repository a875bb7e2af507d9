"""The client-state corpus (tests/corpus/state/, README.md there) replayed on the Python runtime.

Each case is a fresh `ClientState` of the edition's generated table, fed the case's state
messages in order; after each one the changes it reports and the state's snapshot must equal the
line's, as JSON values. The TypeScript and Go runtimes replay the same files. The corpus covers
every `x-state` annotation of the pinned schemas (and every entry of v1's rule table): the list
comes from the IR, and an annotation without a case fails here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from itertools import groupby
from typing import Any

import pytest
from acp_protocol.runtime.client_state import ClientState
from acp_protocol.v1.state import STATE_TABLE as V1
from acp_protocol.v2.unstable.state import STATE_TABLE as V2_UNSTABLE

from acp_codegen import ir
from acp_codegen.pipeline import load_specification
from acp_codegen.targets.state_table import StateEntry, state_table
from tests.paths import ROOT

CORPUS = ROOT / "tests/corpus/state"
TABLES = {"v1": V1, "v2": V2_UNSTABLE}
"""Each file is replayed on its protocol's widest table (v2: the unstable schema's)."""


@cache
def specification() -> ir.Specification:
    return load_specification()


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
    state = ClientState(TABLES[protocol])
    for route in state._routes.values():
        for variant, compiled in route.entries.items():
            route.entries[variant] = compiled._replace(fast=None)
    for index, step in enumerate(group):
        changes = [change.to_json() for change in state.apply(step["message"]).changes]
        assert changes == step["changes"], f"step {index}: changes"
        assert state.snapshot() == step["expect"], f"step {index}: state"


def test_case_names_are_unique_per_file() -> None:
    for protocol in TABLES:
        names = [name for name, _ in cases(protocol)]
        assert len(names) == len(set(names)), protocol


def covered(entry: StateEntry, message: dict[str, Any]) -> bool:
    """Whether `message` is the annotated message `entry` describes."""
    part = "result" if "result" in message else "params"
    if (message.get("method"), part) != (entry.method, entry.part):
        return False
    if entry.at is None or entry.tag is None:
        return True
    payload = message[part].get(entry.at, {})
    return isinstance(payload, dict) and payload.get(entry.tag) == entry.variant


@pytest.mark.parametrize("key", ["v1", "v1/unstable", "v2", "v2/unstable"])
def test_every_annotation_of_the_pinned_schema_has_a_corpus_case(key: str) -> None:
    spec = specification()
    edition = next(e for e in spec.editions if e.key == key)
    table = state_table(edition)
    assert not table.unplaced, "every annotation arrives in some message"
    assert len(table.entries) == len(edition.state)
    messages = [step["message"] for step in steps(edition.protocol)]
    missing = [e.pointer for e in table.entries if not any(covered(e, m) for m in messages)]
    assert missing == [], f"annotations of {key} without a corpus case"


def test_the_generated_tables_are_the_ir_state_tables() -> None:
    """The Python tables are rendered from the same data the corpus test reads."""
    spec = specification()
    for generated, key in ((V1, "v1"), (V2_UNSTABLE, "v2/unstable")):
        edition = next(e for e in spec.editions if e.key == key)
        table = state_table(edition)
        assert [(e.method, e.part, e.variant) for e in generated.entries] == [
            (e.method, e.part, e.variant) for e in table.entries
        ]
        assert (generated.meta, generated.turn) == (table.meta, table.turn)


def test_the_v2_schemas_annotate_and_v1_uses_the_rule_table() -> None:
    spec = specification()
    for edition in spec.editions:
        rules = {a.rule is not None for a in edition.state}
        assert rules == ({True} if edition.protocol == "v1" else {False}), edition.key
    v1 = spec.edition("v1", ir.Stability.STABLE)
    assert v1 is not None and state_table(v1).turn == "session/prompt"


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
