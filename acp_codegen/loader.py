"""Read a schema file into JSON values; syntax errors by line, duplicate keys by pointer.

`json.loads` silently keeps the last of two equal keys; a schema with two `$defs` of one name would
lose a type without a word. The loader records every duplicate instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_codegen.problems import SchemaProblem, SchemaProblems, pointer_join

JsonObject = dict[str, Any]


def load_schema(path: Path) -> JsonObject:
    """Parse `path`; raise `SchemaProblems` naming a syntax error's line or each duplicate key."""
    source = path.name
    text = path.read_text(encoding="utf-8")
    saw_duplicate = False

    def collect(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal saw_duplicate
        obj = dict(pairs)
        saw_duplicate = saw_duplicate or len(obj) != len(pairs)
        return obj

    try:
        doc = json.loads(text, object_pairs_hook=collect)
    except json.JSONDecodeError as exc:
        raise SchemaProblems(
            [
                SchemaProblem(
                    source, "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
                )
            ]
        ) from exc
    if saw_duplicate:
        # The hook sees objects bottom-up without their position; find each duplicate's pointer by
        # re-walking the raw pairs (only on this error path).
        raise SchemaProblems([SchemaProblem(source, p, m) for p, m in _find_duplicates(text)])
    if not isinstance(doc, dict):
        raise SchemaProblems([SchemaProblem(source, "", "the schema must be a JSON object")])
    return doc


def _find_duplicates(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def as_pairs(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        return pairs

    raw = json.loads(text, object_pairs_hook=as_pairs)

    def walk(node: Any, pointer: str) -> None:
        if isinstance(node, list) and node and all(isinstance(p, tuple) for p in node):
            seen: set[str] = set()
            for key, value in node:
                if key in seen:
                    found.append((pointer_join(pointer, key), f"duplicate key {key!r}"))
                seen.add(key)
                walk(value, pointer_join(pointer, key))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, pointer_join(pointer, index))

    walk(raw, "")
    return found
