"""Helper constructors (`acp_protocol.<v>.helpers`): one function per variant of the unions agents
build most, so `text_block("hi")` and `agent_message_chunk("hi")` replace spelled-out models.

Which unions get helpers, and how a helper is named, is one table keyed by the union's name
(`HELPER_UNIONS`); every variant that is a struct gets one, so a new variant in a schema gets its
helper by rule. A helper takes the variant's required fields in order and its optional fields as
keywords that default to `ABSENT` (left out of the message, as opposed to an explicit `None`,
which is sent as `null` where the schema allows it); its tag is the variant's own. A field typed
`ContentBlock` also accepts a `str`, meaning a text block.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from acp_codegen import ir
from acp_codegen.targets.kit.fields import flat_fields
from acp_codegen.targets.python.types import attribute_name
from acp_codegen.words import snake

HELPER_UNIONS: Mapping[str, str] = MappingProxyType(
    {"ContentBlock": "{tag}_block", "SessionUpdate": "{tag}"}
)
"""Union name → the name rule of its variants' helpers (`{tag}` is the tag in snake_case)."""
TEXT_UNION = "ContentBlock"
"""Parameters of this type also take a `str`: a text block."""
TEXT_TAG = "text"
"""The variant of `TEXT_UNION` a `str` becomes."""


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    field: ir.Field
    text: bool
    """Typed `ContentBlock`: a `str` is accepted and wrapped in a text block."""


@dataclass(frozen=True, slots=True)
class Helper:
    name: str
    union: str
    tag: str
    variant: str
    """The class the helper builds."""
    doc: str
    required: tuple[Parameter, ...]
    optional: tuple[Parameter, ...]


@dataclass(frozen=True, slots=True)
class HelpersView:
    unions: tuple[str, ...]
    """The unions whose variants have helpers here."""
    helpers: tuple[Helper, ...]
    imports: tuple[str, ...]
    """Names the module imports from the edition's models."""
    text_helper: str
    """The helper that wraps a `str` into a text block ("" when the edition has none)."""


def helpers_view(edition: ir.Edition) -> HelpersView:
    by_name = {d.name: d for d in edition.definitions}
    helpers: list[Helper] = []
    for union_name, rule in HELPER_UNIONS.items():
        union = by_name.get(union_name)
        if not isinstance(union, ir.TaggedUnion):
            continue
        for variant in union.variants:
            struct = by_name.get(variant.type.name)
            if isinstance(struct, ir.Struct):
                helpers.append(_helper(union, variant, struct, rule, by_name))
    text_helper = next((h.name for h in helpers if h.union == TEXT_UNION and h.tag == TEXT_TAG), "")
    imports: set[str] = {TEXT_UNION} if text_helper else set()
    for helper in helpers:
        imports.add(helper.variant)
        for parameter in (*helper.required, *helper.optional):
            imports.update(ir.referenced_names(parameter.field.type))
    unions = tuple(dict.fromkeys(h.union for h in helpers))
    return HelpersView(unions, tuple(helpers), tuple(sorted(imports)), text_helper)


def _helper(
    union: ir.TaggedUnion,
    variant: ir.Variant,
    struct: ir.Struct,
    rule: str,
    by_name: Mapping[str, ir.Definition],
) -> Helper:
    required, optional = struct_parameters(struct, by_name)
    name = rule.format(tag=snake(variant.tag))
    doc = variant.doc or struct.doc
    return Helper(name, union.name, variant.tag, struct.name, doc, required, optional)


def struct_parameters(
    struct: ir.Struct, by_name: Mapping[str, ir.Definition]
) -> tuple[tuple[Parameter, ...], tuple[Parameter, ...]]:
    """The required and the optional parameters of a constructor of `struct`: every field but
    the constant ones (tags, which the model fills in)."""
    fields = [f for f in flat_fields(struct, by_name) if not isinstance(f.type, ir.Const)]
    parameters = [
        Parameter(attribute_name(f.wire_name), f, f.type == ir.Ref(TEXT_UNION)) for f in fields
    ]
    required = tuple(p for p in parameters if p.field.required)
    optional = tuple(p for p in parameters if not p.field.required)
    return required, optional
