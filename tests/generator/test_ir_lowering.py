"""Lowering rules, each from a small inline schema: JSON Schema in, typed IR out."""

from __future__ import annotations

from typing import Any

import pytest

from acp_codegen import ir
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.naming import OVERRIDES, Overrides
from acp_codegen.problems import SchemaProblems

STRING = {"type": "string"}


def lower(defs: dict[str, Any], overrides: Overrides = OVERRIDES) -> ir.Edition:
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return lower_edition(
        doc,
        protocol="v1",
        channel=ir.Stability.STABLE,
        source="inline.json",
        sha256="0",
        overrides=overrides,
    )


def tagged(tag: str, ref: str, prop: str = "kind") -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {prop: {"type": "string", "const": tag}},
        "required": [prop],
        "allOf": [{"$ref": f"#/$defs/{ref}"}],
    }


def obj(*required: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


BLOCKS: dict[str, Any] = {
    "Text": obj("text", text=STRING),
    "Image": obj("uri", uri=STRING),
    "Block": {"anyOf": [tagged("text", "Text"), tagged("image", "Image")]},
}


def union(edition: ir.Edition, name: str) -> ir.TaggedUnion:
    definition = edition.definition(name)
    assert isinstance(definition, ir.TaggedUnion)
    return definition


def struct(edition: ir.Edition, name: str) -> ir.Struct:
    definition = edition.definition(name)
    assert isinstance(definition, ir.Struct)
    return definition


def test_tag_is_inferred_from_const_when_the_schema_has_no_discriminator() -> None:
    """v2 unions carry no `discriminator` keyword: the property whose `const` tells every branch
    apart is the tag."""
    block = union(lower(BLOCKS), "Block")
    assert (block.tag, block.tags_declared) == ("kind", False)
    assert [(v.tag, v.type.name) for v in block.variants] == [
        ("text", "BlockText"),
        ("image", "BlockImage"),
    ]


def test_discriminator_keyword_names_the_tag() -> None:
    defs = {**BLOCKS, "Block": {**BLOCKS["Block"], "discriminator": {"propertyName": "kind"}}}
    assert union(lower(defs), "Block").tags_declared is True


def test_branch_without_the_tag_is_the_default_variant() -> None:
    """ACP v1 `AuthMethod`: "When no `type` is present, the method is treated as `agent`"."""
    defs = {
        **BLOCKS,
        "Block": {
            "anyOf": [
                tagged("text", "Text"),
                {"title": "image", "allOf": [{"$ref": "#/$defs/Image"}]},
            ]
        },
    }
    block = union(lower(defs), "Block")
    assert block.default == ir.Ref("Image")
    assert [v.tag for v in block.variants] == ["text"]


def test_declared_other_branch_is_the_catch_all_with_its_fields() -> None:
    other = {
        "title": "other",
        "type": "object",
        "properties": {"kind": STRING, "note": STRING},
        "required": ["kind"],
        "not": {"anyOf": [{"properties": {"kind": {"const": "text"}}}]},
    }
    defs = {**BLOCKS, "Block": {"anyOf": [tagged("text", "Text"), other]}}
    edition = lower(defs)
    block = union(edition, "Block")
    assert (block.catch_all, block.catch_all_declared) == ("UnknownBlock", True)
    fields = {f.wire_name: f.required for f in struct(edition, "UnknownBlock").fields}
    assert fields == {"kind": True, "note": False}


def test_every_tagged_union_is_open_with_an_implied_catch_all() -> None:
    edition = lower(BLOCKS)
    block = union(edition, "Block")
    assert (block.catch_all, block.catch_all_declared) == ("UnknownBlock", False)
    (tag,) = struct(edition, "UnknownBlock").fields
    assert (tag.wire_name, tag.type, tag.required) == (
        "kind",
        ir.Primitive(ir.PrimitiveKind.STRING),
        True,
    )


def test_required_optional_and_nullable_are_kept_apart() -> None:
    """Absent and `null` are different messages: `required` and `Nullable` never merge."""
    defs = {
        "Info": {
            "type": "object",
            "properties": {
                "a": STRING,
                "b": {"type": ["string", "null"]},
                "c": STRING,
                "d": {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]},
            },
            "required": ["a", "b"],
        },
        "Id": STRING,
    }
    fields = {f.wire_name: (f.required, f.nullable) for f in struct(lower(defs), "Info").fields}
    assert fields == {
        "a": (True, False),
        "b": (True, True),
        "c": (False, False),
        "d": (False, True),
    }


def test_all_of_references_become_bases_and_own_properties_fields() -> None:
    defs = {
        "Base": obj("id", id=STRING),
        "Named": {"allOf": [{"$ref": "#/$defs/Base"}], **obj("name", name=STRING)},
    }
    named = struct(lower(defs), "Named")
    assert named.bases == ("Base",)
    assert [f.wire_name for f in named.fields] == ["name"]


def test_union_inside_an_object_is_distributed_over_its_properties() -> None:
    """`{properties: {message}, anyOf: [form, url]}`: both variants have `message` (exact:
    A and (B or C) = (A and B) or (A and C))."""
    defs = {
        "Form": obj("schema", schema={"type": "object"}),
        "Url": obj("url", url=STRING),
        "Ask": {
            **obj("message", message=STRING),
            "anyOf": [tagged("form", "Form", "mode"), tagged("url", "Url", "mode")],
        },
    }
    edition = lower(defs)
    ask = union(edition, "Ask")
    assert ask.tag == "mode"
    form = struct(edition, "AskForm")
    assert form.bases == ("Form",)
    assert {f.wire_name for f in form.fields} == {"message", "mode"}


def test_nested_union_under_one_tag_is_a_union_of_its_own() -> None:
    defs = {
        "Session": obj("sessionId", sessionId=STRING),
        "Request": obj("requestId", requestId=STRING),
        "Form": {
            **obj("schema", schema={"type": "object"}),
            "anyOf": [
                {"title": "Session", "allOf": [{"$ref": "#/$defs/Session"}]},
                {"title": "Request", "allOf": [{"$ref": "#/$defs/Request"}]},
            ],
        },
        "Ask": {"anyOf": [tagged("form", "Form", "mode")]},
    }
    edition = lower(defs)
    assert union(edition, "Ask").variants[0].type == ir.Ref("AskForm")
    form = edition.definition("AskForm")
    assert isinstance(form, ir.Alias)
    assert form.target == ir.UnionOf((ir.Ref("AskFormSession"), ir.Ref("AskFormRequest")))


def test_const_branches_are_an_enumeration_open_with_a_string_branch() -> None:
    closed = {"oneOf": [{"type": "string", "const": "a"}, {"type": "string", "const": "b"}]}
    open_ = {"anyOf": [*closed["oneOf"], {"title": "other", "type": "string"}]}
    edition = lower({"Closed": closed, "Open": open_})
    for name, expected in (("Closed", False), ("Open", True)):
        enumeration = edition.definition(name)
        assert isinstance(enumeration, ir.Enumeration)
        assert [m.value for m in enumeration.members] == ["a", "b"]
        assert enumeration.open is expected


def test_additional_properties_make_a_map() -> None:
    defs = {
        "Env": {"type": "object", "additionalProperties": STRING},
        "Meta": {"type": ["object", "null"], "additionalProperties": True},
    }
    edition = lower(defs)
    env, meta = edition.definition("Env"), edition.definition("Meta")
    assert isinstance(env, ir.Alias) and isinstance(meta, ir.Alias)
    assert env.target == ir.Map(ir.Primitive(ir.PrimitiveKind.STRING))
    assert meta.target == ir.Nullable(ir.Map(ir.AnyValue()))


def test_variant_named_parent_plus_tag_or_tag_first_when_that_is_a_def() -> None:
    """`AuthMethod` + `terminal` is the def `AuthMethodTerminal`, so the variant (that def plus
    its tag) is `TerminalAuthMethod`."""
    defs = {
        "AuthMethodTerminal": obj("id", id=STRING),
        "AuthMethodAgent": obj("id", id=STRING),
        "AuthMethod": {
            "anyOf": [
                tagged("terminal", "AuthMethodTerminal", "type"),
                tagged("agent", "AuthMethodAgent", "type"),
            ]
        },
    }
    names = [v.type.name for v in union(lower(defs), "AuthMethod").variants]
    assert names == ["TerminalAuthMethod", "AgentAuthMethod"]


def test_names_do_not_depend_on_branch_order_and_overrides_are_keyed_by_meaning() -> None:
    reordered = {**BLOCKS, "Block": {"anyOf": list(reversed(BLOCKS["Block"]["anyOf"]))}}
    overrides = {("Block", "image"): "Picture"}
    for defs in (BLOCKS, reordered):
        block = union(lower(defs, overrides), "Block")
        assert {v.tag: v.type.name for v in block.variants} == {
            "text": "BlockText",
            "image": "Picture",
        }


def test_every_problem_of_a_document_is_reported_with_its_pointer() -> None:
    """Two untagged, untitled branches with the same keys cannot be named; neither can the
    second. Both are reported in one run."""
    anonymous = {"anyOf": [obj("a", a=STRING), obj("a", a={"type": "integer"})]}
    with pytest.raises(SchemaProblems) as caught:
        lower({"One": anonymous, "Two": anonymous})
    pointers = sorted({p.pointer for p in caught.value.problems})
    assert pointers == ["/$defs/One", "/$defs/Two"]
    assert "no tag, title or distinct key" in str(caught.value)


def test_x_deserialize_rules_become_field_policies() -> None:
    defs = {
        "Listing": {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": STRING,
                    "x-deserialize-skip-invalid-items": True,
                    "x-deserialize-default-on-error": True,
                },
                "_meta": {"type": ["object", "null"], "x-deserialize-default-on-null": True},
            },
        }
    }
    items, meta = struct(lower(defs), "Listing").fields
    assert items.policy == ir.FieldPolicy(default_on_error=True, skip_invalid_items=True)
    assert meta.policy == ir.FieldPolicy(default_on_null=True)
    assert meta.is_meta and not items.is_meta


def _method(name: str, side: str, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "x-method": name, "x-side": side, **extra}


def test_request_and_notification_of_one_name_are_two_methods_of_each_role() -> None:
    """1.5.x schemas: `mcp/message` with `x-side: both` is a request and a notification."""
    edition = lower(
        {
            "MessageMcpRequest": _method("mcp/message", "both"),
            "MessageMcpResponse": _method("mcp/message", "both"),
            "MessageMcpNotification": _method("mcp/message", "both"),
        }
    )
    assert [m.key for m in edition.methods] == [
        ("mcp/message", ir.MethodKind.NOTIFICATION),
        ("mcp/message", ir.MethodKind.REQUEST),
    ]
    for role in edition.roles:
        assert [m.name for m in role.requests] == ["mcp/message"]
        assert [m.name for m in role.notifications] == ["mcp/message"]


def test_error_codes_come_from_the_error_code_enumeration() -> None:
    defs = {
        "ErrorCode": {
            "anyOf": [
                {"title": "Request cancelled", "type": "integer", "const": -32800},
                {"type": "integer"},
            ]
        }
    }
    assert lower(defs).error_codes == (ir.ErrorCode(-32800, "Request cancelled", ""),)
