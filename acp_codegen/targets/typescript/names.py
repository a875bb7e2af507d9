"""TypeScript spellings of the IR: property keys, handler names, doc comment lines.

Names come from rules here; code comes from the templates. One rule names handlers: the method
name's alphanumeric runs joined in camelCase (`session/prompt` → `sessionPrompt`,
`fs/read_text_file` → `fsReadTextFile`, `$/cancel_request` → `cancelRequest`); where an edition
has a request and a notification of one name, the notification's handler gets `Notification`.
Two methods that would share a handler are an error.
"""

from __future__ import annotations

import json
import re

from acp_codegen import ir
from acp_codegen.problems import GenerationError

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_RUN = re.compile(r"[0-9A-Za-z]+")
RESERVED_HANDLERS = frozenset({"extensionRequest", "extensionNotification"})


def property_key(wire_name: str) -> str:
    """An interface property or object key: the wire name, quoted unless it is an identifier."""
    return wire_name if _IDENTIFIER.match(wire_name) else json.dumps(wire_name)


def camel(text: str) -> str:
    """`fs/read_text_file` → `fsReadTextFile`."""
    words = [w for run in _RUN.findall(text) for w in run.split("_") if w]
    return "".join(w if i == 0 else w[:1].upper() + w[1:] for i, w in enumerate(words)) or "method"


def handler_names(edition: ir.Edition) -> dict[tuple[str, ir.MethodKind], str]:
    """The handler name of every method of the edition, by (name, kind)."""
    requests = {m.name for m in edition.requests()}
    names = {
        m.key: camel(m.name)
        + ("Notification" if m.kind is ir.MethodKind.NOTIFICATION and m.name in requests else "")
        for m in edition.methods
    }
    seen: dict[str, str] = {}
    for (method, _), name in sorted(names.items()):
        clash = seen.get(name) or (name if name in RESERVED_HANDLERS else None)
        if clash is not None:
            raise GenerationError(
                f"{edition.source}: methods {clash!r} and {method!r} both map to the "
                f"TypeScript handler {name!r}"
            )
        seen[name] = method
    return names


def comment_lines(text: str) -> list[str]:
    """A schema description's lines for a JSDoc block, `*/` escaped (the block itself is the
    `doc` macro of templates/typescript/expressions.jinja)."""
    return text.strip().replace("*/", "*\\/").splitlines()


def json_literal(value: object) -> str:
    """A JSON value as TypeScript source (JSON is valid TypeScript)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
