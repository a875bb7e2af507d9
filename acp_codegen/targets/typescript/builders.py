"""The builders module of one edition (`<v>/builders.ts`): a plain function per tagged variant of
every tagged union, returning the variant's wire object with its tags filled in, typed.

A tree by rule: one entry per union that is no other union's variant, keyed by the union's name in
camelCase (`SessionUpdate` → `sessionUpdate`); under it one entry per variant, keyed by its tag in
camelCase (`agent_message_chunk` → `agentMessageChunk`). A variant that is a struct is a function
taking the struct's fields but its constant ones (the tags of every level, filled in); a variant
that is itself a tagged union is a subtree (`sessionUpdate.stateUpdate.idle.endTurn({})`); any other
variant (an alias of a union of structs) takes that union's fields but the tag. Unions' default
(untagged) variants and catch-alls have no builder: they carry no tag to fill in.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.targets.kit.fields import flat_fields
from acp_codegen.targets.typescript.names import camel


@dataclass(frozen=True, slots=True)
class Leaf:
    key: str
    tag: str
    type: str
    """The variant's type name in `types.ts`."""
    doc: str
    constants: tuple[tuple[str, object], ...]
    """(wire name, value) of the fields filled in: a struct's every constant, or the union's tag."""
    struct: bool
    optional: bool
    """Every field left to the caller is optional: the argument defaults to `{}`."""


@dataclass(frozen=True, slots=True)
class Node:
    key: str
    union: str
    doc: str
    children: tuple[Leaf | Node, ...]


def lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def builder_tree(edition: ir.Edition) -> tuple[Node, ...]:
    by_name = {d.name: d for d in edition.definitions}
    unions = [d for d in edition.definitions if isinstance(d, ir.TaggedUnion)]
    nested = {v.type.name for u in unions for v in u.variants}
    return tuple(_node(lower_first(u.name), u, by_name) for u in unions if u.name not in nested)


def _node(key: str, union: ir.TaggedUnion, by_name: dict[str, ir.Definition]) -> Node:
    children: list[Leaf | Node] = []
    for variant in union.variants:
        target = by_name[variant.type.name]
        child_key = camel(variant.tag)
        if isinstance(target, ir.TaggedUnion):
            children.append(_node(child_key, target, by_name))
        elif isinstance(target, ir.Struct):
            fields = flat_fields(target, by_name)
            constants = tuple(
                (f.wire_name, f.type.value) for f in fields if isinstance(f.type, ir.Const)
            )
            optional = all(not f.required for f in fields if not isinstance(f.type, ir.Const))
            doc = variant.doc or target.doc
            children.append(
                Leaf(child_key, variant.tag, target.name, doc, constants, True, optional)
            )
        else:
            doc = variant.doc or target.doc
            children.append(
                Leaf(
                    child_key,
                    variant.tag,
                    target.name,
                    doc,
                    ((union.tag, variant.tag),),
                    False,
                    False,
                )
            )
    return Node(key, union.name, union.doc, tuple(children))
