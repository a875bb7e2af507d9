"""Python spellings of the IR: attribute names, and the jinja tests that tell type nodes apart.

Annotations themselves are written by the `annotation` macro of `templates/python/models.py.jinja`
from the IR's type expressions; this module only answers questions the template asks.
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


# One jinja test per IR node class: `{% if t is nullable %}`.
JINJA_TESTS = {
    "primitive": lambda n: isinstance(n, ir.Primitive),
    "const": lambda n: isinstance(n, ir.Const),
    "inline_enum": lambda n: isinstance(n, ir.InlineEnum),
    "array": lambda n: isinstance(n, ir.Array),
    "map": lambda n: isinstance(n, ir.Map),
    "ref": lambda n: isinstance(n, ir.Ref),
    "any_value": lambda n: isinstance(n, ir.AnyValue),
    "null_type": lambda n: isinstance(n, ir.NullType),
    "nullable": lambda n: isinstance(n, ir.Nullable),
    "union_of": lambda n: isinstance(n, ir.UnionOf),
    "struct": lambda n: isinstance(n, ir.Struct),
    "enumeration": lambda n: isinstance(n, ir.Enumeration),
    "tagged_union": lambda n: isinstance(n, ir.TaggedUnion),
    "alias": lambda n: isinstance(n, ir.Alias),
}
