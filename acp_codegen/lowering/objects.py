"""Object shapes: an object schema flattened into its alternatives, and structs made from them.

`expand` reads an object node (its `properties`, `required`, `allOf` parts and union branches) as
a list of `Alt`ernatives, each a plain conjunction: fields, required keys, struct bases. A union
inside an object is distributed over it, exactly (A and (B or C) = (A and B) or (A and C)), so
`{properties: {message}, anyOf: [form, url]}` becomes two alternatives that both have `message`.
Each alternative remembers the labels of the branches it went through (its tag value, else its
title), which name it, and the constant properties that tell it apart (tag inference).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from acp_codegen.ir import NO_DEFAULT, Field, FieldPolicy, Ref, Stability, Struct
from acp_codegen.lowering.context import Lowering, def_pointer
from acp_codegen.lowering.expressions import lower_type
from acp_codegen.lowering.naming import member_name
from acp_codegen.lowering.nodes import (
    branches,
    const_of,
    is_object_like,
    ref_name,
    single_ref,
    union_keyword,
)
from acp_codegen.problems import pointer_join

CATCH_ALL_TITLES = frozenset({"other", "unknown"})


@dataclass(slots=True)
class Alt:
    """One alternative of an object shape: a conjunction of properties and bases."""

    properties: dict[str, tuple[Any, str]] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    bases: list[str] = field(default_factory=list)
    labels: list[str | None] = field(default_factory=list)
    path: list[int] = field(default_factory=list)
    """The branch taken at each union level, outer first (`labels` names them)."""
    consts: dict[str, Any] = field(default_factory=dict)
    open_keys: set[str] = field(default_factory=set)
    doc: str = ""
    title: str = ""
    declared_other: bool = False

    def merged(self, other: Alt) -> Alt:
        return Alt(
            properties={**self.properties, **other.properties},
            required=list(dict.fromkeys([*self.required, *other.required])),
            bases=list(dict.fromkeys([*self.bases, *other.bases])),
            labels=[*self.labels, *other.labels],
            path=[*self.path, *other.path],
            consts={**self.consts, **other.consts},
            open_keys=(self.open_keys | other.open_keys) - other.consts.keys() - self.consts.keys(),
            doc=other.doc or self.doc,
            title=other.title or self.title,
            declared_other=self.declared_other or other.declared_other,
        )


def expand(ctx: Lowering, node: Any, pointer: str, seen: frozenset[str] = frozenset()) -> list[Alt]:
    """The alternatives of object node `node` (see the module docstring)."""
    if not isinstance(node, dict):
        ctx.problem(pointer, "expected an object schema")
        return [Alt()]
    if "$ref" in node:
        node = {**node, "allOf": [{"$ref": node["$ref"]}, *node.get("allOf", [])]}
        del node["$ref"]
    props = node.get("properties") or {}
    title = str(node.get("title", ""))
    own = Alt(
        properties={k: (v, pointer_join(pointer, "properties", k)) for k, v in props.items()},
        required=[str(k) for k in node.get("required", [])],
        consts={k: c for k, v in props.items() if (c := const_of(v)) is not None},
        open_keys={k for k, v in props.items() if _is_open_tag(v)},
        doc=str(node.get("description", "")),
        title=title,
        declared_other="not" in node or title.lower() in CATCH_ALL_TITLES,
    )
    alts = [own]
    for index, item in enumerate(node.get("allOf", []) or []):
        item_pointer = pointer_join(pointer, "allOf", index)
        name = single_ref(item) or (ref_name(item.get("$ref")) if isinstance(item, dict) else None)
        if name is None:
            alts = _product(alts, expand(ctx, item, item_pointer, seen))
        elif name in seen or name not in ctx.defs:
            ctx.problem(item_pointer, f"`allOf` reference to {name!r} is circular or unresolvable")
        elif branches(ctx.defs[name]) and is_object_like(ctx.defs[name], ctx.defs):
            sub = expand(ctx, ctx.defs[name], def_pointer(name), seen | {name})
            alts = _product(alts, sub)
        elif is_object_like(ctx.defs[name], ctx.defs):
            base = Alt(bases=[name], consts=struct_consts(ctx, name))
            alts = [a.merged(base) for a in alts]
        else:
            ctx.problem(item_pointer, f"`allOf` reference to {name!r}, which is not an object")
    options = branches(node)
    if options:
        keyword = union_keyword(node)
        per_branch = []
        for index, branch in options:
            sub = expand(ctx, branch, pointer_join(pointer, keyword or "anyOf", index), seen)
            per_branch.append(sub)
        tag = declared_tag(node) or infer_tag(per_branch)
        labelled = []
        for (index, _), sub in zip(options, per_branch, strict=True):
            label = branch_label(sub, tag)
            labelled += [replace(s, labels=[label, *s.labels], path=[index, *s.path]) for s in sub]
        alts = [a.merged(s) for a in alts for s in labelled]
    return alts


def _product(left: list[Alt], right: list[Alt]) -> list[Alt]:
    return [a.merged(b) for a in left for b in right]


def _is_open_tag(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "string" and "const" not in node


def declared_tag(node: dict[str, Any]) -> str | None:
    discriminator = node.get("discriminator")
    if isinstance(discriminator, dict) and isinstance(discriminator.get("propertyName"), str):
        return str(discriminator["propertyName"])
    return None


def infer_tag(groups: list[list[Alt]], exclude: frozenset[str] = frozenset()) -> str | None:
    """The property whose `const` tells the groups (one per branch) apart, or None.

    A property qualifies when every group either gives it a string constant (values not shared
    with another group: a tagged variant), or a plain string (the catch-all, one group at most), or
    lacks it (the default variant, one group at most), and at least one group is tagged. The best
    has the most tagged groups; ties go to the name that sorts first."""
    candidates = sorted({key for group in groups for alt in group for key in alt.consts} - exclude)
    best: tuple[int, str] | None = None
    for key in candidates:
        tagged = _tagged_groups(groups, key)
        if tagged and (best is None or tagged > best[0]):
            best = (tagged, key)
    return best[1] if best else None


def _tagged_groups(groups: list[list[Alt]], key: str) -> int:
    """How many groups `key` tags, or 0 when it does not qualify as the tag."""
    tagged = open_groups = default_groups = 0
    owner: dict[Any, int] = {}
    for index, group in enumerate(groups):
        if all(isinstance(a.consts.get(key), str) for a in group):
            if any(owner.setdefault(a.consts[key], index) != index for a in group):
                return 0
            tagged += 1
        elif all(key in a.open_keys for a in group):
            open_groups += 1
        elif all(key not in a.consts and key not in a.open_keys for a in group):
            default_groups += 1
        else:
            return 0
    return tagged if open_groups <= 1 and default_groups <= 1 else 0


def branch_label(group: list[Alt], tag: str | None) -> str | None:
    """What names a branch: its tag value when all its alternatives share one, else its title."""
    if tag is not None:
        values = {a.consts.get(tag) for a in group}
        if len(values) == 1 and isinstance(next(iter(values)), str):
            return str(next(iter(values)))
    titles = {a.title for a in group}
    if len(titles) == 1 and next(iter(titles)):
        return next(iter(titles))
    return None


def struct_consts(ctx: Lowering, name: str, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The constant properties of a struct def, its `allOf` bases' included."""
    node = ctx.defs.get(name)
    if not isinstance(node, dict) or name in seen:
        return {}
    consts: dict[str, Any] = {}
    for item in node.get("allOf", []) or []:
        base = single_ref(item)
        if base is not None:
            consts |= struct_consts(ctx, base, seen | {name})
    for key, prop in (node.get("properties") or {}).items():
        if (value := const_of(prop)) is not None:
            consts[key] = value
    return consts


def fields_of(ctx: Lowering, owner: str, alt: Alt) -> tuple[Field, ...]:
    """The IR fields of an alternative's own properties."""
    required = set(alt.required)
    result = []
    for wire, (node, pointer) in alt.properties.items():
        node_dict = node if isinstance(node, dict) else {}
        result.append(
            Field(
                wire_name=wire,
                type=lower_type(ctx, node, pointer, member_name(owner, wire, ctx.overrides)),
                required=wire in required,
                doc=str(node_dict.get("description", "")),
                default=node_dict.get("default", NO_DEFAULT),
                policy=FieldPolicy(
                    default_on_error=bool(node_dict.get("x-deserialize-default-on-error")),
                    skip_invalid_items=bool(node_dict.get("x-deserialize-skip-invalid-items")),
                    default_on_null=bool(node_dict.get("x-deserialize-default-on-null")),
                ),
                pointer=pointer,
            )
        )
    return tuple(result)


def make_struct(
    ctx: Lowering, name: str, pointer: str, alt: Alt, doc: str, stability: Stability
) -> Ref:
    """Register the struct `name` for `alt` and refer to it."""
    ctx.add(
        Struct(
            name=name,
            pointer=pointer,
            doc=doc,
            stability=stability,
            fields=fields_of(ctx, name, alt),
            bases=tuple(alt.bases),
        )
    )
    return Ref(name)
