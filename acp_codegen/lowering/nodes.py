"""Questions asked of raw JSON Schema nodes while lowering (no IR is built here).

A node is a `$defs` entry or any schema below one. These helpers answer what shape a node has:
a reference, a nullable wrapper, a union, an object, a constant.
"""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]
UNION_KEYWORDS = ("anyOf", "oneOf")
# Keywords that describe a node without constraining it.
ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "deprecated",
        "x-docs-ignore",
        "x-deserialize-default-on-error",
        "x-deserialize-skip-invalid-items",
        "x-deserialize-default-on-null",
        "$comment",
        "x-method",
        "x-side",
    }
)
PRIMITIVE_TYPES = frozenset({"string", "integer", "number", "boolean"})
DEF_PREFIX = "#/$defs/"


def union_keyword(node: Any) -> str | None:
    if isinstance(node, dict):
        for keyword in UNION_KEYWORDS:
            if isinstance(node.get(keyword), list):
                return keyword
    return None


def is_null(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and node.get("type") == "null"
        and len(node.keys() - ANNOTATIONS) == 1
    )


def branches(node: JsonObject) -> list[tuple[int, Any]]:
    """The (index, branch) pairs of a node's union that are not bare `null`."""
    keyword = union_keyword(node)
    if keyword is None:
        return []
    return [(i, b) for i, b in enumerate(node[keyword]) if not is_null(b)]


def has_null_branch(node: JsonObject) -> bool:
    keyword = union_keyword(node)
    return keyword is not None and any(is_null(b) for b in node[keyword])


def ref_name(ref: Any) -> str | None:
    if isinstance(ref, str) and ref.startswith(DEF_PREFIX):
        return ref.removeprefix(DEF_PREFIX).replace("~1", "/").replace("~0", "~")
    return None


def single_ref(node: Any) -> str | None:
    """`{"$ref": X}` or `{"allOf": [{"$ref": X}]}` with nothing but annotations around it."""
    if not isinstance(node, dict):
        return None
    rest = node.keys() - ANNOTATIONS
    if rest == {"$ref"}:
        return ref_name(node["$ref"])
    if rest == {"allOf"} and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
        return single_ref(node["allOf"][0])
    return None


def const_of(node: Any) -> Any:
    """The `const` of a node (or its one-value `enum`), or None."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return node["const"]
    enum = node.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return enum[0]
    return None


def is_const_branch(node: Any) -> bool:
    """A scalar constant: one member of an enumeration written as a union of `const`s."""
    return isinstance(node, dict) and "const" in node and "properties" not in node


def is_open_scalar_branch(node: Any) -> bool:
    """`{type: string}` (or integer) without constraints: the catch-all of an open enumeration."""
    return (
        isinstance(node, dict)
        and node.get("type") in ("string", "integer")
        and not (node.keys() - ANNOTATIONS - {"type", "format", "not"})
    )


def is_object_like(node: Any, defs: JsonObject, seen: frozenset[str] = frozenset()) -> bool:
    """Does the node describe a JSON object with known properties (or a union of such)?"""
    if not isinstance(node, dict):
        return False
    name = ref_name(node.get("$ref"))
    if name is not None:
        return name not in seen and is_object_like(defs.get(name), defs, seen | {name})
    if isinstance(node.get("properties"), dict):
        return True
    if any(is_object_like(item, defs, seen) for item in node.get("allOf", []) or []):
        return True
    return any(is_object_like(b, defs, seen) for _, b in branches(node))


def is_scalar_type(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") in PRIMITIVE_TYPES
