"""Lowering of one named node (a `$defs` entry, or an inline object given a name) into the IR.

What a node becomes, checked in this order:
- a union whose branches are all constants (plus at most one plain string or integer branch, its
  catch-all) → `Enumeration`, open when the catch-all is there; so does a def-level `enum`;
- an object, or a union with an object branch → `Struct`, or a union of objects (`unions`);
- anything else (a primitive, an array, a map, a union of primitives or refs) → `Alias`.
"""

from __future__ import annotations

from typing import Any

from acp_codegen.ir import Alias, Enumeration, EnumMember
from acp_codegen.lowering.context import Lowering
from acp_codegen.lowering.expressions import lower_type
from acp_codegen.lowering.nodes import (
    branches,
    has_null_branch,
    is_const_branch,
    is_object_like,
    is_open_scalar_branch,
    single_ref,
)
from acp_codegen.lowering.objects import declared_tag, expand, make_struct
from acp_codegen.lowering.unions import lower_object_union


def lower_definition(ctx: Lowering, name: str, node: Any, pointer: str) -> None:
    """Register the definition(s) `node` lowers to under `name`."""
    stability = ctx.stability_of(name)
    if not isinstance(node, dict):
        ctx.problem(pointer, "a definition must be a schema object")
        return
    doc = str(node.get("description", ""))
    target = single_ref(node)
    if target is not None:
        ctx.add(Alias(name, pointer, doc, stability, lower_type(ctx, node, pointer, name)))
        return
    enumeration = _enumeration(node)
    if enumeration is not None:
        members, open_ = enumeration
        ctx.add(Enumeration(name, pointer, doc, stability, members, open_))
        return
    if is_object_like(node, ctx.defs) and not has_null_branch(node):
        alts = expand(ctx, node, pointer)
        if len(alts) == 1 and not branches(node):
            make_struct(ctx, name, pointer, alts[0], doc, stability)
        else:
            lower_object_union(ctx, name, pointer, doc, alts, declared_tag(node))
        return
    ctx.add(Alias(name, pointer, doc, stability, lower_type(ctx, node, pointer, name)))


def _enumeration(node: dict[str, Any]) -> tuple[tuple[EnumMember, ...], bool] | None:
    values = node.get("enum")
    if isinstance(values, list) and values and "properties" not in node:
        if all(isinstance(v, str) for v in values):
            return tuple(EnumMember(v) for v in values), False
        return None
    options = [b for _, b in branches(node)]
    if not options or "properties" in node or has_null_branch(node):
        return None
    consts = [b for b in options if is_const_branch(b)]
    rest = [b for b in options if not is_const_branch(b)]
    kinds = {type(b["const"]) for b in consts}
    if not consts or kinds - {str, int} or len(kinds) > 1:
        return None
    if len(rest) > 1 or (rest and not is_open_scalar_branch(rest[0])):
        return None
    members = tuple(
        EnumMember(b["const"], str(b.get("description", "")), str(b.get("title", "")))
        for b in consts
    )
    return members, bool(rest)
