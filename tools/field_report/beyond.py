"""What a message holds beyond a pinned schema (layer: schema reading).

The conformance suite validates an agent's messages with the generated models, which are
tolerant by design: they keep an unknown member or variant without a word. This module says what
they kept. It walks one message along the pinned JSON schema of an edition (schema/acp/vN/,
read as the generator reads it: `$defs`, `x-method`, the role of a definition by its name) and
lists, each with its JSON pointer and the value found there:

- `member`: a member no definition on the way declares (`/result/models`);
- `variant`: a tagged value whose tag (`sessionUpdate`, `type`, …) or enumerated value no variant
  has (`/params/update/sessionUpdate` = `"usage_update"`);
- `method`: a method the edition does not have (`_auth/status_update`);
- `missing`: a required member absent (of the variant the message matched best);
- `type`: a value of a type its place does not take;
- `frame`: a line that is not one JSON object (a batch, text).

Nothing here judges: a finding is what a strict decoder of the schema would not know.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ENVELOPE = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})
JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


@dataclass(frozen=True, order=True)
class Finding:
    """One thing of a message a schema does not have."""

    kind: str
    pointer: str
    """JSON pointer into the message (`/result/models`); for `method`, the method."""
    value: Any = field(compare=False, default=None)
    """An example: the member's value, the unknown tag's value, the method's params."""


def pointer_join(pointer: str, token: str | int) -> str:
    return f"{pointer}/{str(token).replace('~', '~0').replace('/', '~1')}"


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return JSON_TYPES.get(type(value), "unknown")


@dataclass
class Shape:
    """A schema node with its `$ref`s and `allOf`s merged: what an instance may hold."""

    properties: dict[str, Any] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    additional: Any = None
    """`additionalProperties` (or `patternProperties`) when it is a schema or true."""
    groups: list[list[Any]] = field(default_factory=list)
    """`anyOf` / `oneOf` lists: one variant of each applies."""
    types: set[str] = field(default_factory=set)
    constants: list[Any] | None = None
    """`const` / `enum`: the values allowed (None: any)."""
    items: Any = None

    @property
    def tags(self) -> dict[str, Any]:
        """The members whose value is fixed (a variant's tag: `{"type": "text"}`)."""
        return {
            name: const[0]
            for name, node in self.properties.items()
            if (const := constants(node)) is not None and len(const) == 1
        }

    def takes(self, kind: str) -> bool:
        if not self.types:
            return True
        return kind in self.types or (kind == "integer" and "number" in self.types)


def constants(node: Any) -> list[Any] | None:
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return [node["const"]]
    if "enum" in node:
        return list(node["enum"])
    return None


class Schema:
    """One pinned schema document: its definitions and its methods."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = document.get("$defs", {})
        self.methods: dict[str, dict[str, str]] = {}
        for name, node in self.defs.items():
            if isinstance(node, dict) and isinstance(node.get("x-method"), str):
                role = next(
                    (r for r in ("Notification", "Response", "Request") if name.endswith(r)), ""
                )
                self.methods.setdefault(node["x-method"], {})[role] = name

    def resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            node = self.defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        return node

    def shape(self, node: Any) -> Shape:
        shape = Shape()
        self._merge(node, shape, 0)
        return shape

    def _merge(self, node: Any, shape: Shape, depth: int) -> None:
        if node is True or not isinstance(node, dict) or depth > 40:
            return
        if "$ref" in node:
            self._merge(self.resolve({"$ref": node["$ref"]}), shape, depth + 1)
        kinds = node.get("type")
        if kinds is not None:
            shape.types |= set(kinds if isinstance(kinds, list) else [kinds])
        if "properties" in node:
            shape.types.add("object")
        for name, child in node.get("properties", {}).items():
            shape.properties.setdefault(name, child)
        shape.required |= set(node.get("required", ()))
        for key in ("additionalProperties", "patternProperties"):
            extra = node.get(key)
            if extra not in (None, False):
                shape.additional = extra if key == "additionalProperties" else True
        if (values := constants(node)) is not None:
            shape.constants = values
        if "items" in node:
            shape.items = node["items"]
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                shape.groups.append(node[key])
        for part in node.get("allOf", ()):
            self._merge(part, shape, depth + 1)

    def walk(self, value: Any, node: Any, pointer: str) -> list[Finding]:
        """What `value` (at `pointer`) holds that `node` does not declare."""
        shape = self.shape(node)
        kind = json_type(value)
        if not shape.takes(kind):
            return [Finding("type", pointer, value)]
        if shape.constants is not None and value not in shape.constants:
            return [Finding("variant", pointer, value)]
        found: list[Finding] = []
        variants: list[Shape] = []
        pending = list(shape.groups)
        while pending:
            chosen, refused = self.choose(value, pending.pop(0), pointer)
            if refused is not None:
                return [*found, refused]
            if chosen is not None:
                variants.append(chosen)
                pending += chosen.groups
        if isinstance(value, dict):
            properties = dict(shape.properties)
            required = set(shape.required)
            additional = shape.additional
            for variant in variants:
                for name, child in variant.properties.items():
                    properties.setdefault(name, child)
                required |= variant.required
                additional = additional or variant.additional
            for name in sorted(required - value.keys()):
                found.append(Finding("missing", pointer_join(pointer, name)))
            if not properties and not any(s.groups for s in (shape, *variants)):
                return found  # a free-form object (`rawInput`, `_meta`): any member
            for name, member in value.items():
                where = pointer_join(pointer, name)
                if name in properties:
                    found += self.walk(member, properties[name], where)
                elif additional is not None:
                    found += self.walk(member, additional, where) if additional is not True else []
                else:
                    found.append(Finding("member", where, member))
        elif isinstance(value, list):
            items = shape.items or next((v.items for v in variants if v.items), None)
            if items is not None:
                for index, item in enumerate(value):
                    found += self.walk(item, items, pointer_join(pointer, index))
        return found

    def choose(
        self, value: Any, group: list[Any], pointer: str
    ) -> tuple[Shape | None, Finding | None]:
        """The variant of `group` that `value` is, or the finding that it is none of them (a
        v2 `other` variant, "custom or future", is a finding too: the value is kept, unknown)."""
        kind = json_type(value)
        shapes = [(v, self.shape(v)) for v in group if not is_other(self.resolve(v))]
        fitting = [(v, s) for v, s in shapes if s.takes(kind)]
        if not fitting:
            return None, Finding("variant" if len(shapes) < len(group) else "type", pointer, value)
        if not isinstance(value, dict):
            enumerated = [s.constants for _, s in fitting if s.constants is not None]
            closed = len(enumerated) == len(fitting) or len(shapes) < len(group)
            if enumerated and closed and not any(value in values for values in enumerated):
                return None, Finding("variant", pointer, value)
        tagged = [(v, s) for v, s in fitting if s.tags]
        if isinstance(value, dict) and tagged:
            names = sorted({name for _, s in tagged for name in s.tags})
            matching = [
                (v, s)
                for v, s in tagged
                if all(value.get(name) == tag for name, tag in s.tags.items())
            ]
            present = [name for name in names if name in value]
            if not matching and present:
                return None, Finding(
                    "variant", pointer_join(pointer, present[0]), value[present[0]]
                )
            untagged = [(v, s) for v, s in fitting if not s.tags]
            if not matching and not untagged:
                return None, Finding("missing", pointer_join(pointer, names[0]))
            fitting = matching or untagged
        best = min(fitting, key=lambda pair: len(self.walk(value, pair[0], pointer)))
        return best[1], None


def is_other(node: Any) -> bool:
    """A v2 catch-all variant ("Custom or future …"): it takes what the others do not."""
    return isinstance(node, dict) and node.get("title") == "other"


@cache
def schema(edition: str, channel: str = "schema") -> Schema:
    """A pinned schema: `edition` v1 or v2, `channel` schema or schema.unstable."""
    path = ROOT / "schema" / "acp" / edition / f"{channel}.json"
    return Schema(json.loads(path.read_text(encoding="utf-8")))


def message_findings(
    message: Any, requests: dict[str, str], edition: str, channel: str = "schema"
) -> list[Finding]:
    """What one message the agent sent holds beyond `edition`'s schema; `requests` maps the
    id (as JSON text) of each request the client sent to its method."""
    if not isinstance(message, dict):
        return [Finding("frame", "", message)]
    document = schema(edition, channel)
    found = [Finding("member", pointer_join("", k), v) for k, v in message.items()]
    found = [f for f in found if f.pointer[1:] not in ENVELOPE]
    method = message.get("method")
    if isinstance(method, str):
        roles = document.methods.get(method)
        role = "Request" if "id" in message else "Notification"
        if roles is None or role not in roles:
            return [*found, Finding("method", method, message.get("params"))]
        return found + document.walk(message.get("params"), {"$ref": roles[role]}, "/params")
    if "error" in message:
        error = document.defs.get("Error")
        return found + (document.walk(message["error"], error, "/error") if error else [])
    asked = requests.get(json.dumps(message.get("id")))
    result = document.methods.get(asked or "", {}).get("Response")
    if result is None:
        return found
    return found + document.walk(message.get("result"), {"$ref": result}, "/result")


def knows(message: Any, requests: dict[str, str], edition: str, channel: str = "schema") -> bool:
    """Whether the schema has the method of `message` (for an answer, of the request it
    answers): a schema without it says nothing of the message's members."""
    if not isinstance(message, dict):
        return False
    method = message.get("method")
    if not isinstance(method, str):
        method = requests.get(json.dumps(message.get("id")), "")
    return method in schema(edition, channel).methods


def received_messages(frames: list[dict[str, Any]]) -> Iterator[tuple[Any, dict[str, str]]]:
    """Each message the agent sent (a `received` frame), with the client's requests so far."""
    requests: dict[str, str] = {}
    for frame in frames:
        value = frame.get("json", frame.get("raw"))
        if frame.get("dir") == "sent" and isinstance(value, dict) and "method" in value:
            if "id" in value:
                requests[json.dumps(value["id"])] = value["method"]
        elif frame.get("dir") == "received":
            yield value, requests
