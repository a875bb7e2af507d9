"""TypeScript spellings of the IR: property keys, handler names, doc comment lines.

Names come from rules here; code comes from the templates. A handler is the method name's
alphanumeric runs joined in camelCase (`session/prompt` → `sessionPrompt`, `fs/read_text_file` →
`fsReadTextFile`, `$/cancel_request` → `cancelRequest`); a notification that shares its name with
a request gets `Notification`; the role interfaces keep `extensionRequest` and
`extensionNotification`. When two names clash is the kit's one rule (`kit.naming`).
"""

from __future__ import annotations

import json
import re

from acp_codegen.targets.kit.naming import MethodSpelling

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_RUN = re.compile(r"[0-9A-Za-z]+")


def property_key(wire_name: str) -> str:
    """An interface property or object key: the wire name, quoted unless it is an identifier."""
    return wire_name if _IDENTIFIER.match(wire_name) else json.dumps(wire_name)


def camel(text: str) -> str:
    """`fs/read_text_file` → `fsReadTextFile`."""
    words = [w for run in _RUN.findall(text) for w in run.split("_") if w]
    return "".join(w if i == 0 else w[:1].upper() + w[1:] for i, w in enumerate(words)) or "method"


RESERVED_HANDLERS = frozenset({"extensionRequest", "extensionNotification"})
"""The role interfaces' own handlers of extension methods."""
HANDLERS = MethodSpelling("TypeScript", "handler", camel, "Notification", RESERVED_HANDLERS)
"""How the TypeScript target names a method's handler (`HANDLERS.names(edition)`)."""


def comment_lines(text: str) -> list[str]:
    """A schema description's lines for a JSDoc block, `*/` escaped (the block itself is the
    `doc` macro of templates/typescript/expressions.jinja)."""
    return text.strip().replace("*/", "*\\/").splitlines()


def json_literal(value: object) -> str:
    """A JSON value as TypeScript source (JSON is valid TypeScript)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
