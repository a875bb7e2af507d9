"""Questions a behaviour rule asks of a validated schema document: is this property there (through
refs, `allOf` and nullable unions), which constants does a union's tag take, does a definition
accept a value, and which description says a sentence (with its JSON pointer).

Read-only and lenient: a missing definition or an odd node answers "no", never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jsonschema

from acp_codegen.lowering.context import def_pointer
from acp_codegen.lowering.nodes import JsonObject
from acp_codegen.problems import pointer_join


def resolve(defs: JsonObject, node: Any) -> Any:
    """`node` with its `$ref`s followed (None when one names no definition)."""
    while isinstance(node, dict) and "$ref" in node:
        node = defs.get(str(node["$ref"]).removeprefix("#/$defs/"))
    return node


def parts(defs: JsonObject, node: Any) -> Iterator[JsonObject]:
    """`node` and every schema it is composed of (refs, `allOf`, non-null `anyOf`/`oneOf`)."""
    node = resolve(defs, node)
    if not isinstance(node, dict):
        return
    yield node
    for keyword in ("allOf", "anyOf", "oneOf"):
        for part in node.get(keyword, []):
            if not (isinstance(part, dict) and part.get("type") == "null"):
                yield from parts(defs, part)


def property_of(defs: JsonObject, node: Any, name: str) -> Any:
    """The schema of property `name` of `node` (own or composed), or None."""
    for part in parts(defs, node):
        found = part.get("properties", {}).get(name)
        if found is not None:
            return found
    return None


def tag_values(defs: JsonObject, node: Any, tag: str | None) -> Iterator[Any]:
    """The constants a union's branches give `tag` (None: the branches' own constants)."""
    for part in parts(defs, node):
        if tag is None and "const" in part:
            yield part["const"]
        elif tag is not None:
            value = part.get("properties", {}).get(tag, {})
            if isinstance(value, dict) and "const" in value:
                yield value["const"]


def accepts(doc: JsonObject, schema: Any, value: Any) -> bool:
    """Whether `schema` (a node of `doc`, its refs resolved against `doc`'s `$defs`) accepts
    `value`."""
    if not isinstance(schema, dict):
        return False
    root = {**schema, "$defs": doc.get("$defs", {})}
    return bool(jsonschema.Draft202012Validator(root).is_valid(value))


def fold(text: str) -> str:
    """Whitespace folded and case ignored, so a quote matches across the schema's line breaks
    and its capitalisation of role names ("the Agent MUST" in 1.20, "the agent MUST" before)."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def find_quote(defs: JsonObject, def_name: str, text: str) -> str | None:
    """The JSON pointer of the description under `def_name` that says `text` (whitespace and
    case folded), the definition's own pointer when only its descriptions together say it, or
    None when nothing under it does."""
    node = defs.get(def_name)
    wanted = fold(text)
    found = list(_descriptions(node, def_pointer(def_name)))
    for pointer, description in found:
        if wanted in fold(description):
            return pointer
    if found and wanted in fold(" ".join(d for _, d in found)):
        return def_pointer(def_name)
    return None


def _descriptions(node: Any, pointer: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield pointer_join(pointer, key), value
            else:
                yield from _descriptions(value, pointer_join(pointer, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _descriptions(item, pointer_join(pointer, index))
