"""Object unions: tag inference, variants, default variant and catch-all, named by rule.

A union of objects is tagged when one property tells its branches apart: the `discriminator`
keyword names it, or (v2 schemas and older v1 ones carry no `discriminator`) it is inferred from
the `const` each branch gives it (`objects.infer_tag`). Each tag value becomes a `Variant`; a
branch without the tag is the default variant; a branch that gives the tag a plain string is the
declared catch-all. Every tagged union is open: without a declared catch-all one is implied, with
just the tag. Several alternatives under one tag (an inner union distributed over its parent)
form a union of their own, built by the same rule one level down.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from acp_codegen.ir import (
    Alias,
    Field,
    Primitive,
    PrimitiveKind,
    Ref,
    Struct,
    TaggedUnion,
    TypeExpr,
    UnionOf,
    Variant,
)
from acp_codegen.lowering.context import Lowering
from acp_codegen.lowering.naming import branch_name, catch_all_name, variant_name
from acp_codegen.lowering.objects import Alt, fields_of, infer_tag, make_struct, struct_consts
from acp_codegen.problems import pointer_join


def lower_object_union(
    ctx: Lowering, name: str, pointer: str, doc: str, alts: list[Alt], tag: str | None
) -> None:
    """Register union `name` over `alts` (grouped by their top-level branch) and its parts."""
    _build(ctx, name, pointer, doc, alts, tag, declared=tag is not None, depth=0, used=frozenset())


def _build(
    ctx: Lowering,
    name: str,
    pointer: str,
    doc: str,
    alts: list[Alt],
    tag: str | None,
    *,
    declared: bool,
    depth: int,
    used: frozenset[str],
) -> None:
    stability = ctx.stability_of(name)
    if tag is None:
        tag = infer_tag(_groups(alts, depth), used)
        declared = False
    if tag is None:
        options = [_leaf(ctx, name, pointer, alt, depth, None, siblings=alts) for alt in alts]
        target: TypeExpr = options[0] if len(options) == 1 else UnionOf(tuple(options))
        ctx.add(Alias(name, pointer, doc, stability, target))
        return
    by_tag: dict[str, list[Alt]] = defaultdict(list)
    open_alts: list[Alt] = []
    default_alts: list[Alt] = []
    for alt in alts:
        value = alt.consts.get(tag)
        if isinstance(value, str):
            by_tag[value].append(alt)
        elif tag in alt.open_keys:
            open_alts.append(alt)
        else:
            default_alts.append(alt)
    variants = []
    for value, group in by_tag.items():
        variant = variant_name(name, value, ctx.def_names, ctx.overrides)
        variant_pointer = pointer_join(pointer, "tag", value)
        if len(group) == 1:
            ref = _leaf(ctx, variant, variant_pointer, group[0], None, tag)
        elif ctx.claim(variant, variant_pointer):
            _build(
                ctx,
                variant,
                variant_pointer,
                group[0].doc,
                group,
                None,
                declared=False,
                depth=depth + 1,
                used=used | {tag},
            )
            ref = Ref(variant)
        else:
            continue
        variants.append(Variant(value, ref, group[0].doc))
    default = None
    if len(default_alts) > 1:
        ctx.problem(pointer, f"union {name!r} has several branches without the tag {tag!r}")
    elif default_alts:
        alt = default_alts[0]
        label = alt.labels[depth] if depth < len(alt.labels) else None
        default = _leaf(
            ctx,
            name,
            pointer_join(pointer, "default"),
            alt,
            depth,
            None,
            label=label,
            siblings=alts,
        )
    catch_all = _catch_all(ctx, name, pointer, tag, open_alts)
    ctx.add(
        TaggedUnion(
            name=name,
            pointer=pointer,
            doc=doc,
            stability=stability,
            tag=tag,
            variants=tuple(variants),
            catch_all=catch_all,
            catch_all_declared=bool(open_alts),
            tags_declared=declared,
            default=default,
        )
    )


def _groups(alts: list[Alt], depth: int) -> list[list[Alt]]:
    """The alternatives grouped by the branch they took at union level `depth`."""
    groups: dict[int | None, list[Alt]] = defaultdict(list)
    for alt in alts:
        groups[alt.path[depth] if depth < len(alt.path) else None].append(alt)
    return list(groups.values())


def _leaf(
    ctx: Lowering,
    parent: str,
    pointer: str,
    alt: Alt,
    depth: int | None,
    tag: str | None,
    *,
    label: str | None = None,
    siblings: Sequence[Alt] = (),
) -> Ref:
    """The struct of one alternative, or the one def it is when it adds nothing but its tag.

    `depth` given: the alternative is named parent + its label at that depth (an untagged union's
    branch); None: it takes `parent` as its name (a tagged variant)."""
    own = set(alt.properties) - ({tag} if tag else set())
    if not own and len(alt.bases) == 1:
        base = alt.bases[0]
        if tag is None or tag in struct_consts(ctx, base):
            return Ref(base)
    name = parent
    if depth is not None:
        label = label if label is not None else _label(alt, depth, siblings)
        if label is None:
            ctx.problem(pointer, f"a branch of {parent!r} has no tag, title or distinct key")
            return Ref(parent)
        name = branch_name(parent, label, ctx.overrides)
        pointer = pointer_join(pointer, "branch", label)
    if not ctx.claim(name, pointer):
        return Ref(name)
    return make_struct(ctx, name, pointer, alt, alt.doc, ctx.stability_of(name))


def _label(alt: Alt, depth: int, siblings: Sequence[Alt]) -> str | None:
    """The branch's label at `depth`, else the first key it requires that no sibling requires."""
    if depth < len(alt.labels) and alt.labels[depth]:
        return alt.labels[depth]
    others = [s for s in siblings if s is not alt]
    return next((k for k in alt.required if all(k not in s.required for s in others)), None)


def _catch_all(ctx: Lowering, union: str, pointer: str, tag: str, open_alts: list[Alt]) -> str:
    """The struct that keeps an unknown variant: the declared catch-all branches' fields (required
    only where every branch requires them), or just the tag."""
    name = catch_all_name(union, ctx.def_names)
    catch_pointer = pointer_join(pointer, "catch-all")
    if not ctx.claim(name, catch_pointer):
        return name
    tag_field = Field(tag, Primitive(PrimitiveKind.STRING), required=True)
    if not open_alts:
        doc = (
            f"A `{union}` variant this schema does not know (a newer peer's); every field is kept."
        )
        ctx.add(Struct(name, catch_pointer, doc, ctx.stability_of(union), (tag_field,)))
        return name
    merged = open_alts[0]
    for alt in open_alts[1:]:
        merged = merged.merged(alt)
    required = [k for k in merged.required if all(k in a.required for a in open_alts)]
    merged.required = required
    fields = fields_of(ctx, name, merged)
    ctx.add(
        Struct(
            name,
            catch_pointer,
            open_alts[0].doc,
            ctx.stability_of(union),
            fields,
            tuple(b for b in merged.bases if all(b in a.bases for a in open_alts)),
        )
    )
    return name
