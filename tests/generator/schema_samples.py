"""Minimal valid instances of a JSON Schema definition, one per union branch: a corpus made from
the schema itself, for every pinned edition (v1 and v2, stable and unstable).

Each sample holds the required properties only, with the first value each keyword admits (the
first branch of a nested union, the first enum member, `minimum`, `minItems` copies). The
official `jsonschema` validator checks every sample against the schema, so a sample the models
reject is the models' fault, not the generator's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

UNION = ("anyOf", "oneOf")
STRING_FORMATS = {"date-time": "2026-11-22T10:00:00Z", "uri": "https://example.com/a b"}


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null"


def instance(node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """The first minimal value `node` accepts."""
    if depth > 40:
        raise RecursionError("schema too deep for a minimal sample")
    if not isinstance(node, dict):
        return {}
    if "$ref" in node:
        base = instance(defs[node["$ref"].removeprefix("#/$defs/")], defs, depth + 1)
        return _merge(base, instance({k: v for k, v in node.items() if k != "$ref"}, defs, depth))
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list):
        return node["enum"][0]
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    value: Any = _scalar(node, kind)
    if value is not _NO_VALUE:
        return value
    if kind == "array":
        count = node.get("minItems", 0)
        return [instance(node.get("items", {}), defs, depth + 1) for _ in range(count)]
    result: Any = {
        key: instance(node.get("properties", {}).get(key, {}), defs, depth + 1)
        for key in node.get("required", [])
    }
    if not result and kind != "object" and "properties" not in node:
        result = _NO_VALUE
    for part in node.get("allOf", []):
        result = _merge(result, instance(part, defs, depth + 1))
    for keyword in UNION:
        branches = [b for b in node.get(keyword, []) if not _is_null(b)]
        if branches:
            result = _merge(result, instance(branches[0], defs, depth + 1))
    return {} if result is _NO_VALUE else result


_NO_VALUE = object()


def _scalar(node: dict[str, Any], kind: Any) -> Any:
    if kind == "string":
        return STRING_FORMATS.get(node.get("format", ""), "x" * max(1, node.get("minLength", 1)))
    if kind == "integer":
        return node.get("minimum", 0)
    if kind == "number":
        return node.get("minimum", 0.5)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return _NO_VALUE


def _merge(left: Any, right: Any) -> Any:
    if left is _NO_VALUE:
        return right
    if right is _NO_VALUE:
        return left
    if isinstance(left, dict) and isinstance(right, dict):
        return {**left, **right}
    return right if left in ({}, None) else left


def branch_samples(name: str, defs: dict[str, Any]) -> Iterator[tuple[str, Any, bool]]:
    """(label, sample, is the declared catch-all) for each branch of union def `name`."""
    node = defs[name]
    base = {k: v for k, v in node.items() if k not in UNION}
    for keyword in UNION:
        for index, branch in enumerate(node.get(keyword, [])):
            if _is_null(branch):
                continue
            value = _merge(instance(base, defs), instance(branch, defs))
            other = isinstance(branch, dict) and (
                "not" in branch or str(branch.get("title", "")).lower() in ("other", "unknown")
            )
            yield f"{name}/{keyword}/{index}", value, other
