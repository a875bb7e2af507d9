"""Python spellings of the IR: attribute names, and the jinja tests that tell type nodes apart.

Annotations themselves are written by the `annotation` macro of `templates/python/annotations.jinja`
from the IR's type expressions (telling node classes apart with `acp_codegen.templating`'s jinja
tests); this module only answers questions the template asks.
"""

from __future__ import annotations

import keyword

from acp_codegen import ir
from acp_codegen.words import snake

PRIMITIVES = {
    ir.PrimitiveKind.STRING: "str",
    ir.PrimitiveKind.INTEGER: "int",
    ir.PrimitiveKind.NUMBER: "float",
    ir.PrimitiveKind.BOOLEAN: "bool",
}
# Attributes a field may not take: Python keywords, pydantic's own model attributes, and the names
# the module's annotations use (a class body's `list = None` would shadow `list[...]` after it).
RESERVED = frozenset(keyword.kwlist) | frozenset(
    {"copy", "dict", "json", "schema", "construct", "validate", "fields", "to_wire"}
    | {"list", "str", "int", "float", "bool", "Any", "Literal", "Annotated", "Field"}
)


def attribute_name(wire_name: str) -> str:
    """The snake_case attribute of a wire name: `sessionId` → `session_id`, `_meta` → `meta`,
    `from` → `from_`."""
    if wire_name == ir.META_WIRE_NAME:
        return "meta"
    name = snake(wire_name) or "field"
    if name in RESERVED or name.startswith("model_"):
        name += "_"
    return name
