"""Behaviour of generated models, each feature rendered from a small inline schema."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from pydantic import ValidationError

Models = Callable[[dict[str, Any]], ModuleType]
META = {
    "type": ["object", "null"],
    "additionalProperties": True,
    "x-deserialize-default-on-error": True,
}


def _tagged(tag: str, ref: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"kind": {"type": "string", "const": tag}},
        "required": ["kind"],
        "allOf": [{"$ref": f"#/$defs/{ref}"}],
    }


UNION_DEFS: dict[str, Any] = {
    "Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    "Image": {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
    "Block": {
        "oneOf": [_tagged("text", "Text"), _tagged("image", "Image")],
        "discriminator": {"propertyName": "kind"},
    },
    "Holder": {
        "type": "object",
        "properties": {"block": {"$ref": "#/$defs/Block"}, "_meta": META},
        "required": ["block"],
    },
}


def test_discriminated_union_selects_the_variant_by_tag(models_from: Models) -> None:
    m = models_from(UNION_DEFS)
    holder = m.Holder.model_validate({"block": {"kind": "image", "uri": "file:///a.png"}})
    assert type(holder.block).__name__ == "BlockImage"
    assert holder.block.uri == "file:///a.png"
    with pytest.raises(ValidationError) as caught:
        m.Holder.model_validate({"block": {"kind": "image"}})
    assert len(caught.value.errors()) == 1, "one targeted error, not one per variant"


def test_unknown_variant_is_kept_not_rejected(models_from: Models) -> None:
    """A newer peer's variant parses as `Unknown<Union>` and round-trips with every field."""
    m = models_from(UNION_DEFS)
    wire = {"block": {"kind": "video", "frames": [1, 2], "codec": {"name": "av1"}}}
    holder = m.Holder.model_validate(wire)
    assert isinstance(holder.block, m.UnknownBlock)
    assert holder.block.kind == "video"
    assert holder.to_wire() == wire


def test_missing_tag_is_still_an_error(models_from: Models) -> None:
    m = models_from(UNION_DEFS)
    with pytest.raises(ValidationError):
        m.Holder.model_validate({"block": {"uri": "x"}})


def test_optional_nullable_field_keeps_absent_null_and_value_apart(models_from: Models) -> None:
    """Absent means unchanged, `null` clears, a value sets: three different messages."""
    m = models_from(
        {"Info": {"type": "object", "properties": {"title": {"type": ["string", "null"]}}}}
    )
    for wire in ({}, {"title": None}, {"title": "t"}):
        assert m.Info.model_validate(wire).to_wire() == wire
    assert m.Info(title=None).to_wire() == {"title": None}
    assert m.Info().to_wire() == {}


def test_default_on_error_drops_the_bad_field_and_keeps_the_message(models_from: Models) -> None:
    m = models_from(
        {
            "Info": {
                "type": "object",
                "properties": {
                    "title": {"type": ["string", "null"], "x-deserialize-default-on-error": True},
                    "count": {"type": "integer"},
                    "_meta": META,
                },
            }
        }
    )
    info = m.Info.model_validate({"title": 5, "count": 2, "_meta": "not an object"})
    assert info.to_wire() == {"count": 2}
    with pytest.raises(ValidationError):
        m.Info.model_validate({"title": 5, "count": "many"})  # `count` is not lenient


def test_skip_invalid_items_drops_only_the_bad_items(models_from: Models) -> None:
    m = models_from(
        {
            "Entry": {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
            },
            "Listing": {
                "type": "object",
                "properties": {
                    "entries": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/Entry"},
                        "x-deserialize-skip-invalid-items": True,
                        "x-deserialize-default-on-error": True,
                    }
                },
            },
        }
    )
    listing = m.Listing.model_validate({"entries": [{"n": 1}, {"n": "x"}, {"n": 3}]})
    assert listing.to_wire() == {"entries": [{"n": 1}, {"n": 3}]}


def test_default_on_null_means_the_default(models_from: Models) -> None:
    m = models_from(
        {
            "Spawn": {
                "type": "object",
                "properties": {
                    "args": {
                        "type": "array",
                        "items": {"type": "string"},
                        "x-deserialize-default-on-null": True,
                    }
                },
                "required": ["args"],
            }
        }
    )
    assert m.Spawn.model_validate({"args": None}).args == []


def test_meta_is_its_own_field_and_unknown_fields_survive(models_from: Models) -> None:
    """`_meta` is never merged into the other fields; extra fields round-trip."""
    m = models_from(
        {
            "Req": {
                "type": "object",
                "properties": {"cwd": {"type": "string"}, "_meta": META},
                "required": ["cwd"],
            }
        }
    )
    wire = {"cwd": "/real", "_meta": {"cwd": "/from-meta"}, "futureField": {"x": 1}}
    req = m.Req.model_validate(wire)
    assert req.cwd == "/real"
    assert req.meta == {"cwd": "/from-meta"}
    assert req.to_wire() == wire


def test_union_without_discriminator_keyword_selects_by_inferred_tag(models_from: Models) -> None:
    """v2 schemas (and v1's `AuthMethod`) tag variants by `const` only: the tag is inferred, a
    branch without it is the default variant, and an unknown tag is kept, never mistaken for
    the default (`{"type": "env_var"}` is not an `agent` auth method)."""
    defs: dict[str, Any] = {
        "Terminal": {"type": "object", "properties": {"id": {"type": "string"}}},
        "Agent": {"type": "object", "properties": {"id": {"type": "string"}}},
        "Method": {
            "anyOf": [
                _tagged("terminal", "Terminal"),
                {"title": "agent", "allOf": [{"$ref": "#/$defs/Agent"}]},
            ]
        },
        "Holder": {
            "type": "object",
            "properties": {"method": {"$ref": "#/$defs/Method"}},
            "required": ["method"],
        },
    }
    m = models_from(defs)
    assert type(m.Holder.model_validate({"method": {"kind": "terminal", "id": "t"}}).method) is (
        m.MethodTerminal
    )
    assert type(m.Holder.model_validate({"method": {"id": "a"}}).method) is m.Agent
    unknown = m.Holder.model_validate({"method": {"kind": "env_var", "vars": ["K"]}})
    assert type(unknown.method) is m.UnknownMethod
    assert unknown.to_wire() == {"method": {"kind": "env_var", "vars": ["K"]}}


def test_uri_field_keeps_the_peers_string_exactly(models_from: Models) -> None:
    """A `format: uri` string is the peer's data: it comes back byte for byte (pydantic's AnyUrl
    would add a trailing slash to a bare host and percent-encode spaces)."""
    m = models_from(
        {
            "Link": {
                "type": "object",
                "properties": {"url": {"type": "string", "format": "uri"}},
                "required": ["url"],
            }
        }
    )
    for url in ("https://example.com", "file:///home/a b.txt"):
        link = m.Link.model_validate({"url": url})
        assert link.url == url
        assert link.to_wire() == {"url": url}
