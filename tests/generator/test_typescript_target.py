"""The TypeScript target from small inline schemas: what it writes for each IR rule (golden
snippets of `types.ts` and `decode.ts`), without node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_codegen.ir import Specification, Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.problems import SchemaProblems
from acp_codegen.targets import Options
from acp_codegen.targets.typescript import generate

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def render(tmp_path: Path, defs: dict[str, Any]) -> dict[str, str]:
    """`types.ts` and `decode.ts` of an edition lowered from `defs`."""
    doc = {"$schema": SCHEMA, "$defs": defs}
    edition = lower_edition(
        doc, protocol="v1", channel=Stability.STABLE, source="inline.json", sha256="0"
    )
    generate(Specification("inline@0", "0", (edition,)), tmp_path, Options(command="test"))
    return {
        name: (tmp_path / "src" / "v1" / name).read_text() for name in ("types.ts", "decode.ts")
    }


def test_optional_nullable_and_meta_are_kept_apart(tmp_path: Path) -> None:
    """`required` says absent or not, `Nullable` says null or not: `field?: T | null` only for a
    field that is both."""
    out = render(
        tmp_path,
        {
            "Info": {
                "type": "object",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": ["string", "null"], "x-deserialize-default-on-error": True},
                    "count": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 9},
                    "_meta": {"type": ["object", "null"], "additionalProperties": True},
                },
            }
        },
    )
    assert "  id: string;\n" in out["types.ts"]
    assert "  title?: string | null;\n" in out["types.ts"]
    assert "  count?: number;\n" in out["types.ts"]
    assert "  _meta?: { [key: string]: unknown } | null;\n" in out["types.ts"]
    assert '  ["title", d.nullable(d.string), d.DEFAULT_ON_ERROR],\n' in out["decode.ts"]
    assert '  ["count", d.integerIn(0, 9), d.OPTIONAL],\n' in out["decode.ts"]
    assert '  ["id", d.string, d.REQUIRED],\n' in out["decode.ts"]


def test_a_tagged_union_is_discriminated_and_open(tmp_path: Path) -> None:
    out = render(
        tmp_path,
        {
            "Block": {
                "discriminator": {"propertyName": "type"},
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["type", "text"],
                        "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
                    },
                    {
                        "type": "object",
                        "required": ["type", "uri"],
                        "properties": {"type": {"const": "link"}, "uri": {"type": "string"}},
                    },
                ],
            }
        },
    )
    types = out["types.ts"]
    assert "export type Block =\n  | BlockText\n  | BlockLink\n  | UnknownBlock;\n" in types
    assert 'export interface BlockText {\n  type: "text";\n  text: string;\n}' in types
    # The unknown variant keeps every field, and its tag is typed apart from the known ones.
    assert "export interface UnknownBlock {\n  type: UnknownTag;\n" in types
    assert "  [key: string]: unknown;\n}" in types
    decode = out["decode.ts"]
    assert '    ["text", BlockText],\n    ["link", BlockLink],\n' in decode
    assert "  UnknownBlock,\n  null,\n);" in decode


def test_a_default_variant_without_the_tag_is_written_tagless(tmp_path: Path) -> None:
    """v1 `AuthMethod`: "When no `type` is present, the method is treated as `agent`"."""
    agent = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
    terminal = {
        "type": "object",
        "required": ["type", "id"],
        "properties": {"type": {"const": "terminal"}, "id": {"type": "string"}},
    }
    out = render(
        tmp_path,
        {
            "AuthMethodAgent": agent,
            "AuthMethod": {
                "discriminator": {"propertyName": "type"},
                "anyOf": [terminal, {"$ref": "#/$defs/AuthMethodAgent"}],
            },
        },
    )
    assert "  | AuthMethodAgent & { type?: undefined }\n" in out["types.ts"]
    assert "  AuthMethodAgent,\n);" in out["decode.ts"]


def test_open_and_closed_enumerations(tmp_path: Path) -> None:
    out = render(
        tmp_path,
        {
            "Stop": {"type": "string", "enum": ["end_turn", "cancelled"]},
            "Kind": {"anyOf": [{"const": "read"}, {"const": "edit"}, {"type": "string"}]},
        },
    )
    assert 'export type Stop =\n  | "end_turn"\n  | "cancelled";\n' in out["types.ts"]
    assert 'export type Kind =\n  | "read"\n  | "edit"\n  | (string & {});\n' in out["types.ts"]
    assert 'const Stop$: d.Decoder = d.oneOf(["end_turn", "cancelled"]);' in out["decode.ts"]
    assert "const Kind$: d.Decoder = d.string;" in out["decode.ts"]


def test_every_generated_file_names_the_command_that_regenerates_it(tmp_path: Path) -> None:
    render(tmp_path, {"Id": {"type": "string"}})
    for path in (tmp_path / "src").rglob("*.ts"):
        head = path.read_text().splitlines()[:3]
        assert any("test" in line and line.startswith("//") for line in head), path


def test_two_methods_with_one_handler_name_are_an_error(tmp_path: Path) -> None:
    params = {"type": "object", "properties": {}}
    defs = {
        "ReadFileRequest": {**params, "x-method": "fs/read_file", "x-side": "client"},
        "ReadFileResponse": {**params, "x-method": "fs/read_file", "x-side": "client"},
        "ReadFile2Request": {**params, "x-method": "fs.read-file", "x-side": "client"},
        "ReadFile2Response": {**params, "x-method": "fs.read-file", "x-side": "client"},
    }
    with pytest.raises(SchemaProblems, match="both map to the TypeScript handler 'fsReadFile'"):
        render(tmp_path, defs)
