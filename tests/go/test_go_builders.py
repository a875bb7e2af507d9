"""The Go builders (`builders.go`) from small inline schemas: one `New<Variant>` per struct that
is a variant of a tagged union, at any depth, taking the required fields; the parameter names by
rule, and the names it refuses. No Go toolchain needed (tests/go/builders_test.go runs them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_codegen.ir import Specification, Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.problems import GenerationError
from acp_codegen.targets import Options
from acp_codegen.targets.go import generate
from acp_codegen.targets.go.names import go_param

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def builders(tmp_path: Path, defs: dict[str, Any]) -> str:
    """`builders.go` of an edition lowered from `defs`."""
    doc = {"$schema": SCHEMA, "$defs": defs}
    edition = lower_edition(
        doc, protocol="v1", channel=Stability.STABLE, source="inline.json", sha256="0"
    )
    generate(Specification("inline@0", "0", (edition,)), tmp_path, Options(command="test"))
    return (tmp_path / "v1" / "builders.go").read_text()


def obj(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


BLOCK = {
    "discriminator": {"propertyName": "type"},
    "oneOf": [
        {
            **obj(
                ["type", "text"],
                type={"const": "text"},
                text={"type": "string"},
                annotations={"type": "string"},
            ),
            "description": "Text content.\n\nMore about it.",
        },
        obj(
            ["type", "uri", "parent"],
            type={"const": "link"},
            uri={"type": "string"},
            parent={"type": ["string", "null"]},
        ),
    ],
}


def test_a_builder_takes_the_required_fields_and_leaves_the_optional_ones_absent(
    tmp_path: Path,
) -> None:
    text = builders(tmp_path, {"Block": BLOCK})
    assert (
        '// NewBlockText returns a BlockText: the variant of Block tagged {"type":"text"}, with its'
        " required\n// fields set. Its optional fields are absent: set them on the value.\n"
        "//\n// Text content.\n"
        "func NewBlockText(text string) BlockText {\n\treturn BlockText{Text: text}\n}\n"
    ) in text
    # Required but nullable: the argument is the field's wire.Opt, in schema order.
    assert (
        "func NewBlockLink(uri string, parent wire.Opt[string]) BlockLink {\n"
        "\treturn BlockLink{URI: uri, Parent: parent}\n}\n"
    ) in text
    assert 'import "acp-protocol-sdk/wire"\n' in text
    # The catch-all carries no tag to build: it has no builder.
    assert "NewUnknownBlock" not in text


def test_a_nested_unions_leaves_have_builders_naming_every_union_on_their_way(
    tmp_path: Path,
) -> None:
    """v2's `state_update` → `idle` shape: a variant that is itself a union, by another tag."""
    state = {
        "oneOf": [
            obj(["state"], state={"const": "running"}),
            obj(["state"], state={"const": "idle"}),
        ]
    }
    update = {
        "oneOf": [
            obj(["kind", "text"], kind={"const": "text"}, text={"type": "string"}),
            {
                "allOf": [{"$ref": "#/$defs/State"}],
                "properties": {"kind": {"const": "state"}},
                "required": ["kind"],
            },
        ]
    }
    text = builders(tmp_path, {"State": state, "Update": update})
    assert (
        "// NewUpdateStateIdle returns an UpdateStateIdle: the variant of Update and UpdateState"
        ' tagged\n// {"kind":"state","state":"idle"}.\n'
        "func NewUpdateStateIdle() UpdateStateIdle {\n\treturn UpdateStateIdle{}\n}\n"
    ) in text
    assert "func NewUpdateText(text string) UpdateText {\n" in text
    assert "func NewStateRunning() StateRunning {\n" in text
    # No parameter is an Opt or a kept JSON value: nothing to import.
    assert "import" not in text


def test_a_parameter_go_keeps_is_renamed_by_rule(tmp_path: Path) -> None:
    """A keyword, a predeclared identifier or an imported package's name gets `_` appended (the
    words of a name are joined without `_`, so no other parameter is named so)."""
    tool = {
        "oneOf": [
            obj(
                ["kind", "range", "string", "json", "sessionId"],
                kind={"const": "call"},
                range={"type": "integer", "format": "uint16"},
                string={"type": "string"},
                json={},
                sessionId={"type": "string"},
            )
        ]
    }
    text = builders(tmp_path, {"Tool": tool})
    assert (
        "func NewToolCall(range_ uint16, string_ string, json_ json.RawMessage, sessionID string)"
        " ToolCall {\n"
        "\treturn ToolCall{Range: range_, String: string_, JSON: json_, SessionID: sessionID}\n}\n"
    ) in text
    assert 'import "encoding/json"\n' in text
    assert go_param("mcpServers") == "mcpServers"
    assert go_param("_meta") == "meta"
    assert go_param("type") == "type_"
    assert go_param("wire", ("wire",)) == "wire_"
    assert go_param("1st") == "n1St"


def test_a_builder_named_like_another_package_level_name_is_refused(tmp_path: Path) -> None:
    defs = {"Block": BLOCK, "NewBlockText": obj([], text={"type": "string"})}
    with pytest.raises(
        GenerationError,
        match="the Go name 'NewBlockText' is both the type NewBlockText and the builder of "
        "BlockText",
    ):
        builders(tmp_path, defs)
