# Copied by acp-codegen from templates/python/conformance/output_gates.py. Do not edit here:
# edit the source, then run `make generate`.

"""Traffic the schema gates behind a client capability (layer: cases): what an agent may send
only when the client advertised a capability, read from the edition's models (the schema's
descriptions are their docstrings and field descriptions).

- `session/update` kinds whose description says so ("Agents MUST NOT send this update unless the
  Client advertised `plan`", "Agents MUST only send this update when the Client advertised the
  `session.notices` Client capability");
- requests to the client behind a capability the `initialize` params carry (`fs.readTextFile`,
  `fs.writeTextFile`, `terminal`, `elicitation`), quoted from the capability's description.

The `output.*` conversation advertises none of them (`clientCapabilities: {}`), so any such
frame is sent to a client that did not advertise it. Each gate's level comes from its own text.
"""

from __future__ import annotations

import inspect
import re
import typing
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from .data import EditionData, Quote

_ADVERTISED = re.compile(r"Client\s+advertised\s+(?:the\s+)?`([^`]+)`")
_METHOD_GATES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("fs", "readTextFile"), "fs/read_text_file"),
    (("fs", "writeTextFile"), "fs/write_text_file"),
    (("terminal",), "terminal/"),
    (("elicitation",), "elicitation/create"),
)
"""Client capabilities (wire keys under `clientCapabilities`) and the agent requests each
gates (a name ending in `/`: every method under it)."""


@dataclass(frozen=True, slots=True)
class Gate:
    """What may be sent only behind `capability`: `update` kinds or request `methods`."""

    name: str
    """The case id's last part: the update kind, or the gated method (family)."""
    capability: str
    quote: Quote
    update: str | None = None
    methods: tuple[str, ...] = ()


def gates(edition: EditionData, models: ModuleType) -> list[Gate]:
    return _update_gates(edition, models) + _method_gates(edition, models)


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of `text` around [start, end), on one line."""
    head = max(text.rfind(". ", 0, start), text.rfind("\n\n", 0, start))
    tail = text.find(".", end)
    sentence = text[head + 2 if head >= 0 else 0 : tail + 1 if tail >= 0 else len(text)]
    return " ".join(sentence.split())


def _update_gates(edition: EditionData, models: ModuleType) -> list[Gate]:
    found: dict[str, Gate] = {}
    entry = edition.method(edition.prompt.update, "notification") if edition.prompt else None
    notification = getattr(models, entry.params, None) if entry is not None else None
    if not (isinstance(notification, type) and issubclass(notification, BaseModel)):
        return []
    update = _field(notification, "update")
    for cls in _models_in(update[0].annotation if update is not None else None):
        tag = cls.model_fields.get("session_update")
        doc = cls.__dict__.get("__doc__")
        if tag is None or type(tag.default) is not str or not isinstance(doc, str):
            continue
        text = inspect.cleandoc(doc)
        match = _ADVERTISED.search(text)
        if match is None or tag.default in found:
            continue
        said = _sentence(text, match.start(), match.end())
        source = f"{edition.source}#/$defs/SessionUpdate (sessionUpdate {tag.default!r})"
        found[tag.default] = Gate(
            tag.default, match.group(1), Quote(said, source), update=tag.default
        )
    return [found[tag] for tag in sorted(found)]


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """Every model class of a union (`A | B`, a type alias of one, `Annotated[…]`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    value = getattr(annotation, "__value__", None)  # a TypeAliasType
    if value is not None:
        return _models_in(value)
    return [cls for arg in typing.get_args(annotation) for cls in _models_in(arg)]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model class inside a field's annotation (`X | None`, `Annotated[X, …]`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    value = getattr(annotation, "__value__", None)  # a TypeAliasType
    return _model_of(value) if value is not None else None


def _field(cls: type[BaseModel], key: str) -> tuple[Any, type[BaseModel] | None] | None:
    for name, info in cls.model_fields.items():
        if key in (name, info.alias):
            return info, _model_of(info.annotation)
    return None


def _method_gates(edition: EditionData, models: ModuleType) -> list[Gate]:
    top = getattr(models, "ClientCapabilities", None)
    if not (isinstance(top, type) and issubclass(top, BaseModel)):
        return []
    names = [m.name for m in edition.methods if m.kind == "request"]
    found = []
    for path, method in _METHOD_GATES:
        methods = tuple(
            n for n in names if n == method or (method[-1] == "/" and n.startswith(method))
        )
        cls: type[BaseModel] | None = top
        info: Any = None
        pointer = ""
        for key in path:
            field = _field(cls, key) if cls is not None else None
            if field is None:
                info = None
                break
            pointer += f"/$defs/{cls.__name__}/properties/{key}" if cls is not None else ""
            info, cls = field
        if not methods or info is None or not info.description:
            continue
        last = pointer.rsplit("/$defs/", 1)[-1]
        said = " ".join(info.description.split())
        name = method.rstrip("/")
        quote = Quote(said, f"{edition.source}#/$defs/{last}")
        found.append(Gate(name, ".".join(path), quote, methods=methods))
    return found
