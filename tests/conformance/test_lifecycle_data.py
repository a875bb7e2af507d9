"""The v2 lifecycle's conformance data is the schema's: each case's text is said by the pinned
v2 schema at the pointer it names, and its level is the one its words carry; the wire names are
the behaviour table's (`Edition.behaviour.lifecycle`). v1's prompt has no such data."""

from __future__ import annotations

import json
from typing import Any

from acp_protocol.conformance.runner import all_cases, load_edition

from acp_codegen.targets.python.conformance_schema import level
from tests.paths import ROOT
from tests.starters.builds import specification

SCHEMA = json.loads((ROOT / "schema" / "acp" / "v2" / "schema.json").read_text(encoding="utf-8"))


def said_at(pointer: str) -> str:
    """The description at a `schema.json#/…` pointer, on one line."""
    node: Any = SCHEMA
    for key in pointer.split("#", 1)[1].strip("/").split("/"):
        node = node[int(key)] if isinstance(node, list) else node[key]
    text = node if isinstance(node, str) else node["description"]
    return " ".join(text.split())


def test_each_lifecycle_case_quotes_the_v2_schema_where_it_says_so() -> None:
    prompt = load_edition("v2").data.prompt
    assert prompt is not None and prompt.lifecycle is not None
    for said in prompt.lifecycle.said:
        assert said.quote.text.lower() in said_at(said.quote.source).lower(), said.key
        assert said.level == level(said.quote.text), said.key
    levels = {s.key: s.level for s in prompt.lifecycle.said}
    assert levels["states"] == "MUST"  # "the Agent MUST report `running` when foreground work…"
    assert levels["stop_reason"] == "SHOULD"  # "The Agent SHOULD include a stop reason…"
    assert levels["close_after"] == "informative"  # "After the close response, the Agent sends…"
    assert levels["retry"] == "MUST"  # "Agents that advertise `capabilities.session` MUST support…"
    assert levels["retry_range"] == "MUST"  # "Agents MUST reject any other value with `-32602`"


def test_the_lifecycle_wire_names_are_the_behaviour_tables() -> None:
    edition = next(e for e in specification().editions if e.key == "v2")
    rule = edition.behaviour.lifecycle
    assert rule is not None and rule.states is not None
    prompt = load_edition("v2").data.prompt
    assert prompt is not None and prompt.lifecycle is not None
    data = prompt.lifecycle
    assert (data.close, data.message_id) == (rule.close, rule.message_id)
    assert (data.running, data.idle, data.requires_action) == (
        rule.states.running,
        rule.states.idle,
        rule.states.requires_action,
    )
    assert data.user_action == rule.states.user_action
    assert data.retry_key == rule.retry_key == "idempotencyKey"


def test_each_lifecycle_case_takes_its_level_from_the_text_it_quotes() -> None:
    data = load_edition("v2").data
    assert data.prompt is not None and data.prompt.lifecycle is not None
    texts = {s.quote.text: s.level for s in data.prompt.lifecycle.said}
    lifecycle = [c for c in all_cases(data) if c.family == "lifecycle"]
    assert len(lifecycle) == 14
    for case in lifecycle:
        assert texts[case.quote.text] == case.level, case.id


def test_under_v1_the_lifecycle_cases_are_listed_and_skipped_with_the_reason() -> None:
    data = load_edition("v1").data
    assert data.prompt is not None and data.prompt.lifecycle is None
    lifecycle = [c for c in all_cases(data) if c.family == "lifecycle"]
    assert len(lifecycle) == 14
    assert {c.level for c in lifecycle} == {"informative"}
