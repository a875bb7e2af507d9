"""The builders module of one edition (`acp_protocol.<v>.builders`): a typed constructor for every
tagged variant of every tagged union, struct or not, named by rule.

A tree by rule: one namespace per union that is no other union's variant, named by the union's
name in snake_case (`SessionUpdate` → `session_update`); under it one constructor per variant,
named by its tag in snake_case (`agent_message_chunk`). A variant that is itself a tagged union is
a nested namespace (`session_update.state_update.idle.end_turn()`); a variant that is an alias of
an untagged union of structs is a namespace with one constructor per struct, named by what the
struct's name adds to the alias's (`create_elicitation_request.form.session(...)`). A constructor
takes the struct's fields but its constant ones (the tags of every level, filled in by the model):
required ones positional, optional ones keywords left out unless given. A union's default
(untagged) variant and its catch-all have no constructor: they carry no tag to fill in.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.python.helpers import TEXT_TAG, TEXT_UNION, Parameter, struct_parameters
from acp_codegen.words import snake

CLASS_SUFFIX = "Builders"
"""A namespace's class is its definition's name plus this (`SessionUpdateBuilders`)."""


@dataclass(frozen=True, slots=True)
class Constructor:
    name: str
    model: str
    """The class the constructor builds."""
    doc: str
    required: tuple[Parameter, ...]
    optional: tuple[Parameter, ...]
    kind: Literal["constructor"] = "constructor"


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    """Its attribute under its parent, or its module-level name for a root."""
    class_name: str
    doc: str
    members: tuple[Constructor | Namespace, ...]
    kind: Literal["namespace"] = "namespace"


@dataclass(frozen=True, slots=True)
class BuildersView:
    roots: tuple[Namespace, ...]
    classes: tuple[Namespace, ...]
    """Every namespace, nested ones before the namespaces that hold them (definition order)."""
    imports: tuple[str, ...]
    """Names the module imports from the edition's models."""
    text_builder: str
    """The constructor that wraps a `str` into a text block (`ContentBlockBuilders.text`; ""
    when the edition has none)."""


def builders_view(edition: ir.Edition) -> BuildersView:
    by_name = {d.name: d for d in edition.definitions}
    unions = [d for d in edition.definitions if isinstance(d, ir.TaggedUnion)]
    nested = {v.type.name for u in unions for v in u.variants}
    roots = tuple(_union(snake(u.name), u, by_name) for u in unions if u.name not in nested)
    classes = tuple(_post_order(roots))
    clashes = sorted({n.class_name for n in classes} & set(by_name))
    if clashes:
        raise GenerationError(f"builder classes clash with schema definitions: {clashes}")
    imports: set[str] = set()
    text_builder = ""
    for namespace in classes:
        for member in namespace.members:
            if isinstance(member, Constructor):
                imports.add(member.model)
                for parameter in (*member.required, *member.optional):
                    imports.update(ir.referenced_names(parameter.field.type))
        if namespace.class_name == TEXT_UNION + CLASS_SUFFIX:
            names = {m.name for m in namespace.members}
            text_builder = f"{namespace.class_name}.{TEXT_TAG}" if TEXT_TAG in names else ""
    if text_builder:
        imports.add(TEXT_UNION)
    return BuildersView(roots, classes, tuple(sorted(imports)), text_builder)


def _union(name: str, union: ir.TaggedUnion, by_name: Mapping[str, ir.Definition]) -> Namespace:
    members: list[Constructor | Namespace] = []
    for variant in union.variants:
        member = _variant(_member(variant.tag), variant, by_name)
        if member is not None:
            members.append(member)
    return Namespace(name, union.name + CLASS_SUFFIX, union.doc, tuple(members))


def _variant(
    name: str, variant: ir.Variant, by_name: Mapping[str, ir.Definition]
) -> Constructor | Namespace | None:
    target = by_name[variant.type.name]
    if isinstance(target, ir.TaggedUnion):
        return _union(name, target, by_name)
    if isinstance(target, ir.Struct):
        return _constructor(name, target, variant.doc or target.doc, by_name)
    if isinstance(target, ir.Alias):
        return _alias(name, target, variant.doc or target.doc, by_name)
    return None


def _alias(
    name: str, alias: ir.Alias, doc: str, by_name: Mapping[str, ir.Definition]
) -> Constructor | Namespace | None:
    """A variant whose type aliases one struct (a constructor) or an untagged union of structs
    (a namespace of one constructor per struct)."""
    options = alias.target.options if isinstance(alias.target, ir.UnionOf) else (alias.target,)
    structs = [
        by_name[o.name]
        for o in options
        if isinstance(o, ir.Ref) and isinstance(by_name.get(o.name), ir.Struct)
    ]
    if len(structs) != len(options):
        return None  # not made of structs: nothing with fields to construct
    if len(structs) == 1 and not isinstance(alias.target, ir.UnionOf):
        return _constructor(name, structs[0], doc, by_name)
    members = tuple(
        _constructor(_member_name(alias.name, s.name), s, s.doc, by_name) for s in structs
    )
    return Namespace(name, alias.name + CLASS_SUFFIX, doc, members)


def _constructor(
    name: str, struct: ir.Definition, doc: str, by_name: Mapping[str, ir.Definition]
) -> Constructor:
    assert isinstance(struct, ir.Struct)
    required, optional = struct_parameters(struct, by_name)
    return Constructor(name, struct.name, doc, required, optional)


def _member_name(alias: str, member: str) -> str:
    """What a member struct's name adds to its alias's (`…FormSession` under `…Form` →
    `session`), or the whole name in snake_case."""
    rest = member[len(alias) :] if member.startswith(alias) else member
    return _member(rest or member)


def _post_order(namespaces: tuple[Namespace, ...]) -> list[Namespace]:
    ordered: list[Namespace] = []
    for namespace in namespaces:
        ordered += _post_order(tuple(m for m in namespace.members if isinstance(m, Namespace)))
        ordered.append(namespace)
    return ordered


def _member(name: str) -> str:
    """A namespace member's name: snake_case, `_` appended to a Python keyword."""
    member = snake(name)
    return member + "_" if keyword.iskeyword(member) else member
