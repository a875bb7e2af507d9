"""The types and decoders modules of one edition, as their templates need them.

TypeScript interfaces are written flat (`kit.fields`): a struct's interface lists its bases'
fields and its own (a field redeclared overrides the base's), so a redeclared field never fights
`extends`. Two rules of the tagged unions live here:
- a union's catch-all struct types its tag as `UnknownTag` (a string at run time, typed apart
  from every known tag so that `switch (u.sessionUpdate)` narrows to the known variants);
- a default variant (the objects *without* the tag) that declares no tag field is written into
  its union as `Variant & { tag?: undefined }`, so the union stays discriminated.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.targets.kit.fields import flat_fields


@dataclass(frozen=True, slots=True)
class FieldView:
    field: ir.Field
    unknown_tag: bool
    """The tag of a union whose catch-all this struct is: typed `UnknownTag`."""

    @property
    def wire_name(self) -> str:
        return self.field.wire_name

    @property
    def flags(self) -> list[str]:
        """The decoder's field flags (`runtime/decoding.ts`), in a fixed order."""
        policy = self.field.policy
        named = [
            ("REQUIRED", self.field.required),
            ("DEFAULT_ON_ERROR", policy.default_on_error),
            ("DEFAULT_ON_NULL", policy.default_on_null),
        ]
        return [name for name, on in named if on] or ["OPTIONAL"]


@dataclass(frozen=True, slots=True)
class VariantView:
    tag: str
    name: str
    untagged: bool
    """The default variant's struct has no tag field: `& { tag?: undefined }` in the union."""


@dataclass(frozen=True, slots=True)
class TypesView:
    edition: ir.Edition
    fields: dict[str, tuple[FieldView, ...]]
    variants: dict[str, tuple[VariantView, ...]]
    default_variants: dict[str, VariantView]
    catch_alls: frozenset[str]
    """The structs that keep a variant the schema does not know: typed with an index signature."""

    def fields_of(self, struct: ir.Struct) -> tuple[FieldView, ...]:
        return self.fields[struct.name]

    def variants_of(self, union: ir.TaggedUnion) -> tuple[VariantView, ...]:
        return self.variants[union.name]

    def default_of(self, union: ir.TaggedUnion) -> VariantView | None:
        return self.default_variants.get(union.name)


def types_view(edition: ir.Edition) -> TypesView:
    by_name = {d.name: d for d in edition.definitions}
    catch_all_tags = {
        d.catch_all: d.tag for d in edition.definitions if isinstance(d, ir.TaggedUnion)
    }
    fields = {
        d.name: tuple(
            FieldView(f, catch_all_tags.get(d.name) == f.wire_name) for f in flat_fields(d, by_name)
        )
        for d in edition.definitions
        if isinstance(d, ir.Struct)
    }
    variants: dict[str, tuple[VariantView, ...]] = {}
    defaults: dict[str, VariantView] = {}
    for d in edition.definitions:
        if not isinstance(d, ir.TaggedUnion):
            continue
        variants[d.name] = tuple(VariantView(v.tag, v.type.name, False) for v in d.variants)
        if d.default is not None:
            target = by_name[d.default.name]
            has_tag = isinstance(target, ir.Struct) and any(
                f.wire_name == d.tag for f in fields[target.name]
            )
            defaults[d.name] = VariantView("", d.default.name, not has_tag)
    return TypesView(edition, fields, variants, defaults, frozenset(catch_all_tags))
