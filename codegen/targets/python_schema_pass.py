"""Schema pre-pass for datamodel-code-generator: rewrite unions that it would cross-multiply.

A union branch that is itself a union (a nested `anyOf`, or `allOf: [$ref]` to a def that is a
union) makes datamodel-code-generator emit intersection classes under numbered names, several per
JSON pointer (`CreateElicitationRequestForm1(CreateElicitationRequestForm4, …)`). Distributing the
branch over its inner union is exact, A and (B or C) = (A and B) or (A and C), and leaves one
flat branch per pointer, which the rename table (`python_names.RENAMES`) can then name.
"""

from __future__ import annotations

import copy
from typing import Any

JsonObject = dict[str, Any]
UNION_KEYWORDS = ("anyOf", "oneOf")


def distribute_nested_unions(defs: JsonObject) -> JsonObject:
    """A copy of `defs` whose top-level union branches contain no union (inputs are not mutated)."""
    result: JsonObject = {}
    for name, schema in defs.items():
        keyword = _union_keyword(schema)
        if keyword is None:
            result[name] = schema
            continue
        branches = [flat for branch in schema[keyword] for flat in _flatten(branch, defs, ())]
        if branches == schema[keyword]:
            result[name] = schema
        else:
            result[name] = {**schema, keyword: branches}
    return result


def _union_keyword(schema: Any) -> str | None:
    if isinstance(schema, dict):
        for keyword in UNION_KEYWORDS:
            if isinstance(schema.get(keyword), list):
                return keyword
    return None


def _flatten(branch: Any, defs: JsonObject, seen: tuple[str, ...]) -> list[Any]:
    if not isinstance(branch, dict):
        return [branch]
    keyword = _union_keyword(branch)
    if keyword is not None:
        base = {k: v for k, v in branch.items() if k != keyword}
        inner = branch[keyword]
    else:
        target_name = _single_ref_target(branch)
        target = defs.get(target_name) if target_name else None
        if target_name is None or target_name in seen or _union_keyword(target) is None:
            return [branch]
        assert isinstance(target, dict)
        seen = (*seen, target_name)
        target_keyword = _union_keyword(target)
        assert target_keyword is not None
        base = _merge(
            {k: v for k, v in branch.items() if k != "allOf"},
            {k: v for k, v in target.items() if k not in (target_keyword, "description", "title")},
        )
        inner = target[target_keyword]
    return [_merge(base, flat) for item in inner for flat in _flatten(item, defs, seen)]


def _single_ref_target(branch: JsonObject) -> str | None:
    all_of = branch.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        ref = all_of[0].get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return ref.removeprefix("#/$defs/")
    return None


def _merge(outer: JsonObject, inner: Any) -> JsonObject:
    """Conjunction of two object schemas: properties and `allOf` joined, `required` united."""
    if not isinstance(inner, dict):
        return {**copy.deepcopy(outer), "allOf": [*outer.get("allOf", []), inner]}
    merged: JsonObject = {**copy.deepcopy(outer)}
    for key, value in inner.items():
        if key == "properties":
            merged["properties"] = {**merged.get("properties", {}), **value}
        elif key == "required":
            merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
        elif key == "allOf":
            merged["allOf"] = [*merged.get("allOf", []), *value]
        elif key not in merged:
            merged[key] = value
    if "properties" in merged:
        merged.setdefault("type", "object")
    return merged
