"""The builders of one edition (`builders.go`): `New<Variant>(required fields…)` for every struct
that is a variant of a tagged union, at any depth.

In Go a composite literal already writes a variant's tags (the type is the tag), but it leaves a
required field at its zero value without a word. A builder takes every required field, and only
those, as an argument: forgetting one is a compile error. By rule:
- every struct member of a tagged union's interface has one, and so does every struct member of
  a union that is itself such a member (v2's `state_update` → `idle` → each stop reason; v1's
  `CreateElicitationRequest` `form` → `CreateElicitationRequestFormSession`): the set the other
  targets' builders have. A union's default (untagged) variant and its catch-all have none;
- its name is `New` + the struct's Go name; one that is already a package-level name (a type, a
  constant, a table, a method constant, a role's name) fails generation naming both;
- its parameters are the required fields but the tags, in schema order (a base's fields first),
  each of the field's Go type (required but nullable: a `wire.Opt`) and named by
  `names.go_param` (`sessionId` → `sessionID`; `type` → `type_`);
- a variant with no required field still has one (`NewSessionUpdateStateUpdateRunning()`): every
  variant is built one way, and a field the schema later makes required changes its builder's
  signature, so a call that leaves it out stops compiling;
- optional fields are left absent: the caller sets them on the value it gets.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go.names import check_identifier, go_param
from acp_codegen.targets.go.tables import TablesView
from acp_codegen.targets.go.unions import Interface
from acp_codegen.targets.go.views import FieldView, PackageView, StructView

PREFIX = "New"
"""A builder's name is this and the Go name of the struct it builds."""
IMPORTS = ("json", "wire")
"""The names of the packages `builders.go` may import: no parameter is named so."""
DOC_WIDTH = 96
"""The width the builder's own doc sentences are wrapped to (after `// `)."""


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    field: FieldView


@dataclass(frozen=True, slots=True)
class Builder:
    name: str
    struct: StructView
    params: tuple[Parameter, ...]
    doc: str

    @property
    def type(self) -> str:
        return self.struct.name


@dataclass(frozen=True, slots=True)
class BuildersView:
    builders: tuple[Builder, ...]
    """In the order of the edition's definitions."""
    uses_json: bool
    """A parameter's type mentions `json.RawMessage`."""
    uses_wire: bool
    """A parameter's type mentions `wire.Opt` or `wire.JSONNull`."""


def builders_view(view: PackageView, tables: TablesView) -> BuildersView:
    unions = _variants(view)
    taken = dict(view.package_names())
    taken |= {m.constant: f"the method {m.method.name!r}" for m in tables.methods}
    taken |= {n: f"a name of the role {r.role.name!r}" for r in tables.roles for n in r.names}
    builders: list[Builder] = []
    for definition in view.edition.definitions:
        if definition.name not in view.structs:
            continue
        struct = view.structs[definition.name]
        if struct.name not in unions:
            continue
        name = PREFIX + struct.name
        if name in taken:
            raise GenerationError(
                f"{view.edition.source}: the Go name {name!r} is both {taken[name]} and the "
                f"builder of {definition.name}"
            )
        params = _parameters(struct)
        builders.append(Builder(name, struct, params, _doc(name, struct, unions[struct.name])))
    fields = [p.field for b in builders for p in b.params]
    return BuildersView(
        tuple(builders),
        any(_mentions(f.value, (ir.AnyValue,)) for f in fields),
        any(f.opt or _mentions(f.value, (ir.Nullable, ir.NullType)) for f in fields),
    )


def _variants(view: PackageView) -> dict[str, list[str]]:
    """Each struct that is a variant of a tagged union (at any depth) → the unions it is a
    variant of, the outermost first (a nested tagged union is walked from its parent and as
    itself: its longest trail comes first)."""
    interfaces = view.unions.interfaces
    trails: dict[str, list[tuple[str, ...]]] = {}

    def walk(interface: Interface, trail: tuple[str, ...]) -> None:
        trail = (*trail, interface.name)
        for member in interface.members:
            if member.kind == "struct":
                trails.setdefault(member.name, []).append(trail)
            elif member.kind == "interface":
                walk(interfaces[member.name], trail)

    for interface in interfaces.values():
        if interface.tagged is not None:
            walk(interface, ())
    return {
        struct: list(dict.fromkeys(n for t in sorted(found, key=len, reverse=True) for n in t))
        for struct, found in trails.items()
    }


def _parameters(struct: StructView) -> tuple[Parameter, ...]:
    params: list[Parameter] = []
    seen: dict[str, str] = {}
    for f in struct.members:
        if not f.field.required:
            continue
        where = f"{struct.definition.pointer}/properties/{f.wire_name}"
        name = check_identifier(go_param(f.wire_name, IMPORTS), where)
        if name in seen:
            raise GenerationError(
                f"{where}: the parameter {name!r} of {PREFIX}{struct.name} is also the field "
                f"{seen[name]!r}"
            )
        seen[name] = f.wire_name
        params.append(Parameter(name, f))
    return tuple(params)


def _doc(name: str, struct: StructView, unions: list[str]) -> str:
    """What the builder makes (its unions, its tags, what it leaves to the caller), then the
    first paragraph of the variant's description."""
    tags = ",".join(f'"{f.wire_name}":"{f.constant}"' for f in struct.constants)
    members = struct.members
    article = "an" if struct.name[0] in "AEIOU" else "a"
    summary = f"{name} returns {article} {struct.name}: the variant of {_listed(unions)}"
    summary += f" tagged {{{tags}}}" if tags else ""
    summary += ", with its required fields set." if any(f.field.required for f in members) else "."
    if any(not f.field.required for f in members):
        summary += " Its optional fields are absent: set them on the value."
    summary = textwrap.fill(summary, DOC_WIDTH, break_long_words=False, break_on_hyphens=False)
    description = struct.definition.doc.strip().split("\n\n")[0].strip()
    return summary + ("\n\n" + description if description else "")


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _mentions(expr: ir.TypeExpr, kinds: tuple[type, ...]) -> bool:
    if isinstance(expr, kinds):
        return True
    children: tuple[ir.TypeExpr, ...] = ()
    if isinstance(expr, ir.Array):
        children = (expr.items,)
    elif isinstance(expr, ir.Map):
        children = (expr.values,)
    elif isinstance(expr, ir.Nullable):
        children = (expr.inner,)
    elif isinstance(expr, ir.UnionOf):
        return False  # an inline untagged union is a named interface of the package
    return any(_mentions(c, kinds) for c in children)
