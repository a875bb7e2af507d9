"""What the agent sends, checked against the negotiated edition's schema (layer: cases).

Each message is validated with the edition's generated models (`acp_protocol.<edition>.models`
through `runtime.validators.validator_for`), not with the JSON schema: the package depends on
pydantic only. The models are tolerant by design (unknown fields and unknown variants are kept,
so extensions are never errors) but refuse what the schema refuses of known shapes: a missing
REQUIRED field, a known variant without its tag, a value of the wrong type.

- a result, by the request of the suite it answers (the edition's `MethodEntry.result`);
- an error, as the schema's `Error` object;
- a request or notification the agent sends, by its method's params type (unknown and
  `_`-prefixed methods are not judged here).

A problem names the first error's JSON pointer in the message (`/params/update/content`) and the
schema's description of the failing field or definition, read from the models (they carry the
schema's descriptions as field descriptions and docstrings).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..runtime.validators import validator_for
from .data import EditionData

_WRAPPERS = frozenset(
    {"function-wrap", "function-before", "function-after", "nullable", "default", "lax-or-strict"}
)


@dataclass(frozen=True, slots=True)
class Problem:
    """The first thing the schema refuses in one message."""

    pointer: str
    """JSON pointer into the message (`/params/update/content`)."""
    what: str
    """What is wrong there (`missing required "type"`)."""
    where: str
    """The definition (and field) that refused it: `ContentChunk.content`."""
    said: str
    """The schema's description of it ("" when it has none)."""

    def line(self) -> str:
        text = f"{self.pointer or '/'}: {self.what}"
        if self.where:
            text += f" ({self.where}"
            if self.said:
                said = " ".join(self.said.split())
                text += f': "{said[:200]}{"…" if len(said) > 200 else ""}"'
            text += ")"
        return text


def id_key(value: Any) -> str:
    """A request id as text that keeps its type (7 and "7" differ)."""
    return f"{type(value).__name__}:{value!r}"


def check_message(
    message: dict[str, Any], asked: dict[str, str], edition: EditionData, models: ModuleType
) -> Problem | None:
    """The first problem of `message` (a JSON object the agent wrote), or None. `asked` maps
    the `id_key` of each request the suite sent to its method."""
    method = message.get("method")
    if type(method) is str:
        if method.startswith("_"):
            return None
        kind = "request" if "id" in message else "notification"
        entry = edition.method(method, kind) or edition.method(
            method, "notification" if kind == "request" else "request"
        )
        if entry is None:
            return None
        params = message.get("params", {})
        return validate(getattr(models, entry.params, None), params, "/params")
    if "result" in message and "error" in message:
        return None  # not one answer: output.never_result_and_error
    if "result" in message:
        asked_method = asked.get(id_key(message.get("id")))
        entry = edition.method(asked_method) if asked_method is not None else None
        if entry is None or entry.result is None:
            return None
        return validate(getattr(models, entry.result, None), message["result"], "/result")
    if "error" in message:
        return validate(getattr(models, "Error", None), message["error"], "/error")
    return None


def validate(wire_type: Any, value: Any, prefix: str) -> Problem | None:
    """Validate `value` as `wire_type` (a model class or a type alias of the models)."""
    if wire_type is None:
        return None
    try:
        validator_for(wire_type)(value)
    except ValidationError as error:
        first = error.errors()[0]
        return _problem(wire_type, value, prefix, first)
    except ValueError as error:  # a validator's own refusal
        return Problem(prefix, str(error).splitlines()[0], _name(wire_type), "")
    return None


def _name(wire_type: Any) -> str:
    return str(getattr(wire_type, "__name__", wire_type))


def _core_schema(wire_type: Any) -> Any:
    if isinstance(wire_type, type) and issubclass(wire_type, BaseModel):
        return wire_type.__pydantic_core_schema__
    return TypeAdapter(wire_type).core_schema


def _doc(cls: Any) -> str:
    doc = cls.__dict__.get("__doc__") if isinstance(cls, type) else None
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


class _Walk:
    """The error's `loc` followed through the core schema and the value at once: the pointer
    keeps only the steps into the value (fields, items, keys), not the union labels."""

    def __init__(self, core: Any, value: Any, owner: Any) -> None:
        self.defs: dict[str, Any] = {}
        self.node = core
        self.value = value
        self.pointer: list[str] = []
        self.model: Any = owner if isinstance(owner, type) else None
        self.where = _name(owner)
        self.said = _doc(owner)

    def unwrap(self) -> None:
        while isinstance(self.node, dict):
            kind = self.node.get("type")
            if kind == "definitions":
                self.defs.update({d["ref"]: d for d in self.node["definitions"] if "ref" in d})
                self.node = self.node["schema"]
            elif kind == "definition-ref" and self.node.get("schema_ref") in self.defs:
                self.node = self.defs[self.node["schema_ref"]]
            elif kind == "model":
                self.model = self.node["cls"]
                self.where, self.said = self.model.__name__, _doc(self.model)
                self.node = self.node["schema"]
            elif kind in _WRAPPERS and "schema" in self.node:
                self.node = self.node["schema"]
            else:
                return

    def step(self, key: Any) -> bool:
        """One `loc` element through the schema; False when the schema cannot follow it."""
        self.unwrap()
        node = self.node if isinstance(self.node, dict) else {}
        kind = node.get("type")
        if kind == "model-fields":
            for name, field in node["fields"].items():
                if key in (name, field.get("validation_alias")):
                    self._into(key)
                    info = getattr(self.model, "model_fields", {}).get(name)
                    self.where = f"{_name(self.model)}.{key}"
                    self.said = (info.description if info is not None else None) or ""
                    self.node = field["schema"]
                    return True
            return False
        if kind == "tagged-union":
            choice = node["choices"].get(key)
            if choice is None:
                return False
            self.node = choice
            return True
        if kind == "union":
            for choice in node["choices"]:
                schema, label = choice if isinstance(choice, tuple) else (choice, None)
                cls = schema.get("cls") if isinstance(schema, dict) else None
                if key in (label, getattr(cls, "__name__", None), schema.get("type")):
                    self.node = schema
                    return True
            return False
        if kind in ("list", "set", "tuple") and type(key) is int:
            self._into(key)
            self.node = node.get("items_schema", {})
            return True
        if kind == "dict":
            self._into(key)
            self.node = node.get("values_schema", {})
            return True
        return False

    def tag(self) -> str | None:
        """The tag of the tagged union the walk ended at (`type` of a content block)."""
        self.unwrap()
        node = self.node if isinstance(self.node, dict) else {}
        if node.get("type") != "tagged-union":
            return None
        discriminator = node.get("discriminator")
        name = getattr(discriminator, "wire_name", discriminator)
        return name if type(name) is str else None

    def _into(self, key: Any) -> None:
        self.pointer.append(_escape(key))
        if isinstance(self.value, dict):
            self.value = self.value.get(key)
        elif isinstance(self.value, list) and type(key) is int and 0 <= key < len(self.value):
            self.value = self.value[key]
        else:
            self.value = None

    def guess(self, rest: list[Any]) -> None:
        """The rest of `loc` where the schema walk stopped: only steps into the value."""
        for n, key in enumerate(rest):
            into_dict = isinstance(self.value, dict) and key in self.value
            into_list = isinstance(self.value, list) and type(key) is int
            missing = n == len(rest) - 1 and isinstance(self.value, dict)  # a missing field
            if into_dict or into_list or missing:
                self._into(key)


def _problem(wire_type: Any, value: Any, prefix: str, error: Any) -> Problem:
    walk = _Walk(_core_schema(wire_type), value, wire_type)
    loc = list(error.get("loc", ()))
    for n, key in enumerate(loc):
        if not walk.step(key):
            walk.guess(loc[n:])
            break
    kind = error.get("type", "")
    if kind == "missing":
        what = f'missing required "{loc[-1]}"' if loc else "missing"
    elif kind in ("union_tag_not_found", "union_tag_invalid") and walk.tag():
        what = f'no valid "{walk.tag()}" naming its kind'
    else:
        what = str(error.get("msg", kind))
    pointer = prefix + "".join(f"/{p}" for p in walk.pointer)
    return Problem(pointer, what, walk.where, walk.said)
