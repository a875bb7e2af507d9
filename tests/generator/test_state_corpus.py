"""The client-state corpus (tests/corpus/state/) against the IR: every `x-state` annotation of the
pinned schemas (and every entry of v1's rule table) has a case, and the generated Python tables
are the IR's state tables. The corpus itself is replayed by tests/runtime/test_session_state.py
(and the TypeScript and Go runtimes)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from acp_protocol.v1.state import STATE_TABLE as V1
from acp_protocol.v2.unstable.state import STATE_TABLE as V2_UNSTABLE

from acp_codegen import ir
from acp_codegen.pipeline import load_specification
from acp_codegen.targets.state_table import StateEntry, state_table
from tests.paths import ROOT

CORPUS = ROOT / "tests/corpus/state"


@cache
def specification() -> ir.Specification:
    return load_specification()


def steps(protocol: str) -> list[dict[str, Any]]:
    path = CORPUS / f"{protocol}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


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
