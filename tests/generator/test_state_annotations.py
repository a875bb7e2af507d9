"""The schema's `x-state` / `x-scope` extensions reach the IR as data: one typed node per
annotation with its JSON pointer (`acp_codegen.lowering.state`). Schema crate 1.20's v2 types say,
e.g. on `SessionUpdate`'s `tool_call_update` branch, `{"session": [{"action": "upsert", "target":
"toolCall", "id": "toolCallId"}]}`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_codegen import ir
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.behaviour import RULES
from acp_codegen.pipeline import load_specification
from acp_codegen.problems import SchemaProblems
from tests.paths import ROOT

CRATE_1_20 = ROOT / "tests/fixtures/schemas/crate-1.20.0"
UPSERT_TOOL_CALL = {"session": [{"action": "upsert", "target": "toolCall", "id": "toolCallId"}]}


def lower(defs: dict[str, Any]) -> ir.Edition:
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return lower_edition(
        doc, protocol="v2", channel=ir.Stability.STABLE, source="inline.json", sha256="0"
    )


def branch(tag: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"sessionUpdate": {"type": "string", "const": tag}},
        "required": ["sessionUpdate"],
        **extra,
    }


UPDATE = {
    "SessionUpdate": {
        "anyOf": [
            branch("tool_call_update", **{"x-state": UPSERT_TOOL_CALL}),
            branch("notice", **{"x-state": {}}),
            branch("plain"),
        ]
    },
    "UpdateSessionNotification": {
        "type": "object",
        "properties": {"sessionId": {"type": "string"}},
        "x-scope": {"session": ["sessionId"]},
    },
}


def test_an_annotation_on_a_union_branch_names_its_variant_and_pointer() -> None:
    edition = lower(UPDATE)
    upsert, _ = edition.state
    assert upsert.at == ir.Annotated(
        "SessionUpdate", "tool_call_update", "/$defs/SessionUpdate/anyOf/0/x-state"
    )
    assert upsert.effects == (ir.StateEffect("session", "upsert", "toolCall", id="toolCallId"),)
    assert upsert.effects[0].known


def test_an_empty_x_state_says_the_message_changes_no_state() -> None:
    _, notice = lower(UPDATE).state
    assert (notice.at.variant, notice.effects) == ("notice", ())


def test_x_scope_maps_each_scope_to_the_paths_of_its_key() -> None:
    (scope,) = lower(UPDATE).scopes
    assert scope.at == ir.Annotated(
        "UpdateSessionNotification", None, "/$defs/UpdateSessionNotification/x-scope"
    )
    assert scope.keys == (("session", ("sessionId",)),)


def test_an_action_this_generator_does_not_know_is_kept_not_refused() -> None:
    defs = {"X": {"type": "object", "x-state": {"session": [{"action": "merge", "target": "t"}]}}}
    (annotation,) = lower(defs).state
    assert annotation.effects[0].action == "merge" and not annotation.effects[0].known


def test_a_malformed_annotation_is_a_problem_naming_its_pointer() -> None:
    defs = {
        "X": {"type": "object", "x-state": {"session": [{"target": "t"}]}},
        "Y": {"type": "object", "x-scope": {"session": "sessionId"}},
    }
    with pytest.raises(SchemaProblems) as caught:
        lower(defs)
    found = [str(p) for p in caught.value.problems]
    assert found == [
        "inline.json#/$defs/X/x-state: `x-state` session[0] needs string `action` and `target`",
        "inline.json#/$defs/Y/x-scope: `x-scope` must map each scope to an array of dotted paths",
    ]


def count(node: Any, keyword: str) -> int:
    if isinstance(node, dict):
        return sum((key == keyword) + count(value, keyword) for key, value in node.items())
    if isinstance(node, list):
        return sum(count(item, keyword) for item in node)
    return 0


def test_the_ir_has_every_x_state_and_x_scope_annotation_of_the_crate_1_20_schemas() -> None:
    """Counted against the schema files themselves: 34 `x-state` and 6 `x-scope` in v2
    unstable, as many as the crate's source writes; v1 has none yet."""
    spec = load_specification(CRATE_1_20)
    counted = {}
    for edition in spec.editions:
        path = CRATE_1_20 / "schema/acp" / edition.protocol / edition.source
        doc = json.loads(Path(path).read_text())
        own = [a for a in edition.state if a.rule is None]
        assert len(own) == count(doc, "x-state"), edition.key
        assert len(edition.scopes) == count(doc, "x-scope"), edition.key
        counted[edition.key] = (len(own), len(edition.scopes))
    assert counted["v2/unstable"] == (34, 6)
    assert counted["v1"] == counted["v1/unstable"] == (0, 0)
    v1 = spec.edition("v1", ir.Stability.STABLE)
    # v1's rule table (lowering/state_rules.py): its 11 update variants and the permission request
    assert v1 is not None and len(v1.state) == 12
    unstable = spec.edition("v2", ir.Stability.UNSTABLE)
    assert unstable is not None
    actions = {e.action for a in unstable.state for e in a.effects}
    assert actions == {"upsert", "append", "replace", "remove"}


V1_UPDATE = {
    "ContentChunk": {
        "type": "object",
        "properties": {"content": {}, "messageId": {"type": ["string", "null"]}},
        "required": ["content"],
    },
    "ToolCallUpdate": {
        "type": "object",
        "properties": {"toolCallId": {"type": "string"}},
        "required": ["toolCallId"],
    },
    "SessionUpdate": {
        "oneOf": [
            branch("agent_message_chunk", allOf=[{"$ref": "#/$defs/ContentChunk"}]),
            branch("tool_call_update", allOf=[{"$ref": "#/$defs/ToolCallUpdate"}]),
        ]
    },
}


def lower_v1(defs: dict[str, Any]) -> ir.Edition:
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return lower_edition(
        doc,
        protocol="v1",
        channel=ir.Stability.STABLE,
        source="v1.json",
        sha256="0",
        rules=RULES,
    )


def test_v1s_rule_table_becomes_annotations_on_the_variants_the_schema_has() -> None:
    edition = lower_v1(V1_UPDATE)
    chunk, tool_call = edition.state
    assert chunk.at == ir.Annotated(
        "SessionUpdate", "agent_message_chunk", "/$defs/SessionUpdate/oneOf/0"
    )
    assert chunk.rule == "SessionUpdate.agent_message_chunk"
    assert chunk.effects == (
        ir.StateEffect(
            "session", "append", "agentMessage", "messageId", "content", "content", fallback="turn"
        ),
    )
    assert tool_call.effects == (ir.StateEffect("session", "upsert", "toolCall", "toolCallId"),)
    absent = {record.name: record.reason for record in edition.behaviour.absent}
    assert (
        absent["plan changes client state"]
        == "`SessionUpdate` has no variant `sessionUpdate: plan`"
    )


def test_a_rule_whose_field_the_schema_lacks_does_not_apply() -> None:
    defs = {
        **V1_UPDATE,
        "ToolCallUpdate": {"type": "object", "properties": {"id": {"type": "string"}}},
    }
    edition = lower_v1(defs)
    assert [a.at.variant for a in edition.state] == ["agent_message_chunk"]
    absent = {record.name: record.reason for record in edition.behaviour.absent}
    assert (
        absent["tool_call_update changes client state"]
        == "`ToolCallUpdate` has no field `toolCallId`"
    )


def test_a_variant_the_schema_annotates_keeps_the_schemas_annotation() -> None:
    annotated = branch(
        "tool_call_update",
        allOf=[{"$ref": "#/$defs/ToolCallUpdate"}],
        **{"x-state": UPSERT_TOOL_CALL},
    )
    defs = {**V1_UPDATE, "SessionUpdate": {"oneOf": [annotated]}}
    (only,) = lower_v1(defs).state
    assert only.rule is None and only.at.pointer.endswith("/x-state")
