"""Unions as Go sealed interfaces: which interfaces an edition has, which types are their
members, and the marker methods that seal them.

Go has no sum types. Every union is an interface with one unexported marker method
(`isContentBlock()`), so only this package's types implement it:
- a tagged union (`ir.TaggedUnion`) has one member per tag, its default variant and its
  catch-all (`UnknownContentBlock`, which keeps a variant this schema does not know, every field
  of it);
- an untagged union (`ir.UnionOf`, told apart by shape) is an interface too: the alias naming
  it, or, inline in a field, named by rule: the struct and the field (`AgentResponseError` +
  `id` → `AgentResponseErrorID`).
A member that is a struct implements the marker itself. A member that is itself a union is a
sub-interface: it embeds its parents, so each of its members implements theirs too
(`CreateElicitationRequestForm` embeds `CreateElicitationRequest`). Any other member (a string,
a list, a kept JSON value) is wrapped in a defined type named by rule: the union and the
member's word (`ElicitationContentValueString`; `SessionConfigSelectOptions` +
`SessionConfigSelectGroup` list → `SessionConfigSelectOptionsSessionConfigSelectGroupList`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go.names import go_name


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a union: `kind` `struct` (a struct implementing the marker), `interface`
    (a sub-interface) or `wrapper` (a defined type around `expr`)."""

    name: str
    kind: str
    expr: ir.TypeExpr
    tag: str = ""


@dataclass(slots=True)
class Interface:
    """A union as a Go interface. `tagged` is the IR union (None: untagged, `options` in
    order)."""

    name: str
    schema_name: str
    doc: str
    tagged: ir.TaggedUnion | None
    members: list[Member] = field(default_factory=list)
    default: Member | None = None
    catch_all: Member | None = None
    parents: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A defined type around a union member that is not a struct: `raw` when its Go type is a
    kept JSON value, whose MarshalJSON must then be written (a defined `[]byte` type would be
    base64)."""

    name: str
    union: str
    expr: ir.TypeExpr
    raw: bool
    markers: tuple[str, ...]


def strip_nullable(expr: ir.TypeExpr) -> ir.TypeExpr:
    return expr.inner if isinstance(expr, ir.Nullable) else expr


class UnionTable:
    """Every interface of an edition, its members, and each concrete type's markers."""

    def __init__(self, edition: ir.Edition, go_names: dict[str, str]) -> None:
        self.edition = edition
        self.by_name = {d.name: d for d in edition.definitions}
        self.go_names = go_names
        self.interfaces: dict[str, Interface] = {}
        self.inline: dict[tuple[str, str], str] = {}
        """(struct, wire name) → the Go name of the field's inline untagged union."""
        untagged: list[tuple[str, str, str, ir.UnionOf]] = []
        for d in edition.definitions:
            target = strip_nullable(d.target) if isinstance(d, ir.Alias) else None
            if isinstance(d, ir.Alias) and isinstance(target, ir.UnionOf):
                untagged.append((go_names[d.name], d.name, d.doc, target))
            elif isinstance(d, ir.Struct):
                for f in d.fields:
                    inner = strip_nullable(f.type)
                    if isinstance(inner, ir.UnionOf):
                        name = go_names[d.name] + go_name(f.wire_name)
                        self.inline[(d.name, f.wire_name)] = name
                        untagged.append((name, f"{d.name}.{f.wire_name}", f.doc, inner))
        self.names = {
            go_names[d.name] for d in edition.definitions if isinstance(d, ir.TaggedUnion)
        }
        self.names |= {name for name, *_ in untagged}
        for d in edition.definitions:
            if isinstance(d, ir.TaggedUnion):
                self._tagged(d)
        for name, schema_name, doc, union in untagged:
            self._untagged(name, schema_name, doc, union)
        self.wrappers = self._wrappers()
        self.markers = self._markers()

    def resolve(self, name: str) -> ir.Definition:
        """The definition a name stands for, through aliases of a plain reference."""
        definition = self.by_name[name]
        seen = {name}
        while isinstance(definition, ir.Alias) and isinstance(definition.target, ir.Ref):
            if definition.target.name in seen:
                raise GenerationError(f"alias cycle through {definition.target.name!r}")
            seen.add(definition.target.name)
            definition = self.by_name[definition.target.name]
        return definition

    def is_interface(self, name: str) -> bool:
        return self.go_names[self.resolve(name).name] in self.names

    def _member(self, union: str, expr: ir.TypeExpr, tag: str = "") -> Member:
        if isinstance(expr, ir.Ref):
            target = self.resolve(expr.name)
            if isinstance(target, ir.Struct):
                return Member(self.go_names[target.name], "struct", expr, tag)
            if self.is_interface(expr.name):
                return Member(self.go_names[target.name], "interface", expr, tag)
        return Member(union + self._word(expr, union), "wrapper", expr, tag)

    def _word(self, expr: ir.TypeExpr, union: str) -> str:
        if isinstance(expr, ir.Primitive):
            return go_name(expr.kind.value)
        if isinstance(expr, ir.Array):
            return self._word(expr.items, union) + "List"
        if isinstance(expr, ir.Map):
            return self._word(expr.values, union) + "Map"
        if isinstance(expr, ir.Ref):
            return self.go_names[expr.name]
        if isinstance(expr, ir.AnyValue):
            return "Value"
        if isinstance(expr, ir.NullType):
            return "Null"
        raise GenerationError(f"{union}: the Go target cannot name a union member {expr!r}")

    def _tagged(self, union: ir.TaggedUnion) -> None:
        name = self.go_names[union.name]
        interface = Interface(name, union.name, union.doc, union)
        interface.members = [self._member(name, v.type, v.tag) for v in union.variants]
        if union.default is not None:
            interface.default = self._member(name, union.default)
        interface.catch_all = self._member(name, ir.Ref(union.catch_all))
        for member in [interface.default, interface.catch_all]:
            if member is not None and member.kind != "struct":
                raise GenerationError(f"{union.name}: {member.name} is not a struct")
        self.interfaces[name] = interface

    def _untagged(self, name: str, schema_name: str, doc: str, union: ir.UnionOf) -> None:
        interface = Interface(name, schema_name, doc, None)
        interface.members = [self._member(name, option) for option in union.options]
        self.interfaces[name] = interface

    def all_members(self, interface: Interface) -> list[Member]:
        extra = [m for m in (interface.default, interface.catch_all) if m is not None]
        return interface.members + extra

    def _wrappers(self) -> dict[str, Wrapper]:
        wrappers: dict[str, Wrapper] = {}
        for interface in self.interfaces.values():
            for member in interface.members:
                if member.kind == "wrapper":
                    raw = self._is_raw(member.expr)
                    wrappers[member.name] = Wrapper(
                        member.name, interface.name, member.expr, raw, ()
                    )
        return wrappers

    def _is_raw(self, expr: ir.TypeExpr) -> bool:
        if isinstance(expr, ir.Ref):
            target = self.resolve(expr.name)
            return isinstance(target, ir.Alias) and self._is_raw(target.target)
        return isinstance(expr, ir.AnyValue)

    def _markers(self) -> dict[str, tuple[str, ...]]:
        """Each member type's interfaces, every ancestor included (a sub-interface embeds its
        parents, so its members must implement their markers too)."""
        parents: dict[str, set[str]] = {}
        for interface in self.interfaces.values():
            for member in self.all_members(interface):
                parents.setdefault(member.name, set()).add(interface.name)
        for interface in self.interfaces.values():
            interface.parents = sorted(parents.get(interface.name, ()))

        def ancestors(name: str, trail: tuple[str, ...]) -> set[str]:
            if name in trail:
                raise GenerationError(f"union cycle: {' → '.join((*trail, name))}")
            found: set[str] = set()
            for parent in parents.get(name, ()):
                found |= {parent} | ancestors(parent, (*trail, name))
            return found

        markers = {
            name: tuple(sorted(ancestors(name, ())))
            for name in parents
            if name not in self.interfaces
        }
        for name, wrapper in self.wrappers.items():
            self.wrappers[name] = Wrapper(
                name, wrapper.union, wrapper.expr, wrapper.raw, markers[name]
            )
        return markers
