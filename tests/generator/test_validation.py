"""Schema validation: every problem is reported, each with its JSON pointer, in one run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_codegen.loader import load_schema
from acp_codegen.problems import SchemaProblems
from acp_codegen.validation import validate_schema

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _request_pair(method: str = "thing/do", side: str = "agent") -> dict[str, Any]:
    return {
        "DoRequest": {"type": "object", "x-method": method, "x-side": side},
        "DoResponse": {"type": "object", "x-method": method, "x-side": side},
    }


def problems(defs: dict[str, Any]) -> list[tuple[str, str]]:
    doc = {"$schema": SCHEMA, "$defs": defs}
    return sorted((p.pointer, p.message) for p in validate_schema(doc, "inline.json"))


def test_a_well_formed_schema_has_no_problems() -> None:
    defs = _request_pair() | {
        "PingNotification": {"type": "object", "x-method": "ping", "x-side": "client"},
        "Thing": {"type": "object", "properties": {"a": {"$ref": "#/$defs/DoRequest"}}},
    }
    assert problems(defs) == []


def test_dangling_ref_is_reported_at_the_ref() -> None:
    defs = {"Thing": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nowhere"}}}}
    assert problems(defs) == [
        ("/$defs/Thing/properties/a/$ref", "$ref '#/$defs/Nowhere' does not resolve")
    ]


def test_x_method_without_x_side_is_reported() -> None:
    """Every `x-method` MUST have an `x-side`."""
    defs = _request_pair()
    del defs["DoRequest"]["x-side"]
    assert problems(defs) == [("/$defs/DoRequest", "`x-method` 'thing/do' has no `x-side`")]


def test_x_side_outside_the_known_sides_is_reported() -> None:
    defs = _request_pair(side="server")
    found = problems(defs)
    assert [pointer for pointer, _ in found] == [
        "/$defs/DoRequest/x-side",
        "/$defs/DoResponse/x-side",
    ]
    assert "is not one of agent, both, client, protocol, proxy" in found[0][1]


def test_request_without_response_type_is_reported() -> None:
    defs = _request_pair()
    del defs["DoResponse"]
    assert problems(defs) == [
        ("/$defs/DoRequest", "request method 'thing/do' has no response type")
    ]


def test_method_def_outside_the_role_rule_is_reported() -> None:
    defs = {"DoThing": {"type": "object", "x-method": "thing/do", "x-side": "agent"}}
    assert problems(defs) == [
        ("/$defs/DoThing", "method def 'DoThing' must end in Request, Response or Notification")
    ]


def test_two_params_types_for_one_method_are_reported() -> None:
    defs = _request_pair() | {"OtherDoRequest": {"x-method": "thing/do", "x-side": "agent"}}
    assert (
        "/$defs/OtherDoRequest",
        "method 'thing/do' already has a request type 'DoRequest'",
    ) in problems(defs)


def test_type_names_that_differ_only_in_case_are_reported() -> None:
    defs = {"Thing": {"type": "object"}, "THING": {"type": "object"}}
    assert problems(defs) == [("/$defs/THING", "type name 'THING' clashes with 'Thing'")]


def test_invalid_json_schema_is_reported_by_metaschema() -> None:
    defs = {"Thing": {"type": 5}}
    found = problems(defs)
    assert found and found[0][0] == "/$defs/Thing/type"
    assert found[0][1].startswith("not a valid JSON Schema")


def test_every_problem_is_reported_in_one_run() -> None:
    """A dangling `$ref` and an `x-method` without `x-side`: both, with their pointers."""
    defs = _request_pair() | {"Thing": {"properties": {"a": {"$ref": "#/$defs/Gone"}}}}
    del defs["DoResponse"]["x-side"]
    assert [pointer for pointer, _ in problems(defs)] == [
        "/$defs/DoResponse",
        "/$defs/Thing/properties/a/$ref",
    ]


def test_duplicate_defs_key_is_reported_by_the_loader(tmp_path: Path) -> None:
    """`json.loads` would silently keep the last of two equal keys; the loader refuses."""
    path = tmp_path / "dup.json"
    path.write_text('{"$defs": {"A": {"type": "object"}, "A": {"type": "string"}}}')
    with pytest.raises(SchemaProblems) as caught:
        load_schema(path)
    assert [(p.pointer, p.message) for p in caught.value.problems] == [
        ("/$defs/A", "duplicate key 'A'")
    ]


def test_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "$defs": {\n    "A": ,\n  }\n}')
    with pytest.raises(SchemaProblems) as caught:
        load_schema(path)
    assert "line 3" in str(caught.value)


def test_the_pinned_schemas_validate_cleanly() -> None:
    from acp_codegen.pipeline import ROOT
    from tests.generator.conftest import PINNED

    for locked in PINNED:
        doc = json.loads((ROOT / locked.path).read_text())
        assert validate_schema(doc, locked.path) == []
