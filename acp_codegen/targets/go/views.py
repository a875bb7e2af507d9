"""One edition as the Go templates need it: its types by kind, each struct's fields, the rules
that are Go's and not the IR's, and the checks that every name is free.

The rules that are Go's:
- a struct is written flat (`kit.fields`): its bases' fields, then its own (a redeclared field
  takes the base's place), so no embedded struct's promoted methods fight its own MarshalJSON;
- a field that may be absent or null (or both) is a `wire.Opt[T]`, with `omitzero` when it may
  be absent; any other field is its type itself. A reference to an alias of a nullable type (v1's
  `RequestId`) is nullable where it is used: the alias names the type without the null;
- a field whose type is a constant (a variant's tag) is not a Go field: decoding checks it and
  marshalling writes it, so a variant cannot be built with another variant's tag;
- a required array or map left nil is written `[]` or `{}`, not null;
- an alias of a primitive is a defined type (`type SessionID string`); any other alias is a Go
  alias (`type ExtRequest = json.RawMessage`), so its methods are its target's.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go.names import check_identifier, go_name, json_tag_name
from acp_codegen.targets.go.unions import Interface, UnionTable, Wrapper, strip_nullable
from acp_codegen.targets.kit.fields import flat_fields

INTEGER_TYPES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}
"""The Go integer type of each integer format (another format, or none, is int64), and the
range it holds: a schema bound the type already implies is not checked again."""
FIXED_NAMES = ("Behaviour", "EditionVersion", "ErrorCodes", "Methods", "Roles", "Types")
"""The package-level names every edition's package declares besides its types."""
EXTRA_FIELD = "Extra"
"""Every struct's field keeping the members its schema does not name."""


@dataclass(frozen=True, slots=True)
class FieldView:
    field: ir.Field
    name: str
    """The Go field name; for a constant, unused."""
    value: ir.TypeExpr
    """The field's type without its null."""
    nullable: bool
    union: str
    """The Go name of an inline untagged union in this field ("" when none)."""

    @property
    def wire_name(self) -> str:
        return self.field.wire_name

    @property
    def constant(self) -> str | None:
        """The value of a constant field (a variant's tag); None for any other field."""
        value = self.value
        return value.value if isinstance(value, ir.Const) and isinstance(value.value, str) else None

    @property
    def opt(self) -> bool:
        return self.nullable or not self.field.required

    @property
    def flags(self) -> list[str]:
        policy = self.field.policy
        named = [
            ("Required", self.field.required),
            ("Nullable", self.nullable),
            ("DefaultOnError", policy.default_on_error),
            ("DefaultOnNull", policy.default_on_null),
        ]
        return [name for name, on in named if on]

    @property
    def fill_empty(self) -> str:
        """`array` or `map` when a nil value must be written empty (a required array or map)."""
        if self.opt:
            return ""
        return (
            "array"
            if isinstance(self.value, ir.Array)
            else "map" if isinstance(self.value, ir.Map) else ""
        )


@dataclass(frozen=True, slots=True)
class StructView:
    definition: ir.Struct
    name: str
    fields: tuple[FieldView, ...]
    markers: tuple[str, ...]

    @property
    def constants(self) -> tuple[FieldView, ...]:
        return tuple(f for f in self.fields if f.constant is not None)

    @property
    def members(self) -> tuple[FieldView, ...]:
        return tuple(f for f in self.fields if f.constant is None)


@dataclass(frozen=True, slots=True)
class EnumConstant:
    name: str
    value: str | int
    doc: str


@dataclass(frozen=True, slots=True)
class EnumView:
    definition: ir.Enumeration
    name: str
    base: str
    """`string` or `int64`."""
    constants: tuple[EnumConstant, ...]


@dataclass(frozen=True, slots=True)
class AliasView:
    definition: ir.Alias
    name: str
    target: ir.TypeExpr
    """The target without its null."""
    defined: bool
    """`type X string` (a primitive); otherwise `type X = …`."""


class PackageView:
    """One edition's Go package: every type, by the order of the edition's definitions."""

    def __init__(self, edition: ir.Edition) -> None:
        self.edition = edition
        self.go_names = {
            d.name: check_identifier(go_name(d.name), d.pointer) for d in edition.definitions
        }
        self.unions = UnionTable(edition, self.go_names)
        self.by_name = self.unions.by_name
        self.structs: dict[str, StructView] = {}
        self.enums: dict[str, EnumView] = {}
        self.aliases: dict[str, AliasView] = {}
        for d in edition.definitions:
            if isinstance(d, ir.Struct):
                self.structs[d.name] = self._struct(d)
            elif isinstance(d, ir.Enumeration):
                self.enums[d.name] = self._enum(d)
            elif isinstance(d, ir.Alias) and self.go_names[d.name] not in self.unions.interfaces:
                target = strip_nullable(d.target)
                defined = isinstance(target, (ir.Primitive, ir.InlineEnum))
                self.aliases[d.name] = AliasView(d, self.go_names[d.name], target, defined)
        self.uses_json = self._uses_json()

    # Lookups the templates make -------------------------------------------------------------

    def doc(self, definition: ir.Definition) -> str:
        """A type's doc comment: the schema's description, then its schema name where the Go
        name differs, and whether only the unstable schema has it."""
        parts = [definition.doc.strip()] if definition.doc.strip() else []
        if self.go_names[definition.name] != definition.name:
            parts.append(f"Schema name: {definition.name}.")
        if definition.stability is ir.Stability.UNSTABLE:
            parts.append("Unstable: only the unstable schema has it.")
        return "\n\n".join(parts)

    def interface_doc(self, interface: Interface) -> str:
        definition = self.by_name.get(interface.schema_name)
        if definition is None:
            return interface.doc
        nullable = isinstance(definition, ir.Alias) and isinstance(definition.target, ir.Nullable)
        null = "\n\nIt may be null where it is used: there it is a wire.Opt." if nullable else ""
        return self.doc(definition) + null

    def go(self, name: str) -> str:
        """The Go name of a definition."""
        return self.go_names[name]

    def kind(self, name: str) -> str:
        """`struct`, `interface`, `enum` or `alias`: how a reference to `name` is decoded."""
        target = self.by_name[name]
        if isinstance(target, ir.Struct):
            return "struct"
        if self.go_names[name] in self.unions.interfaces:
            return "interface"
        return "enum" if isinstance(target, ir.Enumeration) else "alias"

    def interface(self, name: str) -> Interface:
        return self.unions.interfaces[self.go_names[name]]

    @property
    def interfaces(self) -> list[Interface]:
        return list(self.unions.interfaces.values())

    @property
    def inline_interfaces(self) -> list[Interface]:
        inline = set(self.unions.inline.values())
        return [i for i in self.unions.interfaces.values() if i.name in inline]

    @property
    def wrappers(self) -> list[Wrapper]:
        return list(self.unions.wrappers.values())

    def integer_type(self, t: ir.Primitive) -> str:
        return t.format if t.format in INTEGER_TYPES else "int64"

    def bounds(self, t: ir.Primitive) -> tuple[int | float | None, int | float | None]:
        """The bounds to check beyond those the Go type implies."""
        low, high = t.constraints.minimum, t.constraints.maximum
        if t.kind is ir.PrimitiveKind.INTEGER:
            implied_low, implied_high = INTEGER_TYPES[self.integer_type(t)]
            low = None if low is None or low <= implied_low else low
            high = None if high is None or high >= implied_high else high
        return low, high

    # Building the views -----------------------------------------------------------------------

    def _nullable_alias(self, name: str) -> bool:
        definition = self.by_name[name]
        if not isinstance(definition, ir.Alias):
            return False
        target = definition.target
        return isinstance(target, ir.Nullable) or (
            isinstance(target, ir.Ref) and self._nullable_alias(target.name)
        )

    def _struct(self, struct: ir.Struct) -> StructView:
        name = self.go_names[struct.name]
        fields: list[FieldView] = []
        taken = {EXTRA_FIELD: "the kept unknown members"}
        for f in flat_fields(struct, self.by_name):
            where = f"{struct.pointer}/properties/{f.wire_name}"
            json_tag_name(f.wire_name, where)
            value = strip_nullable(f.type)
            nullable = f.nullable or (
                isinstance(value, ir.Ref) and self._nullable_alias(value.name)
            )
            self._check_expr(value, where, top=True)
            if isinstance(value, ir.Const) and not (isinstance(value.value, str) and f.required):
                raise GenerationError(
                    f"{where}: the Go target writes only required string constants"
                )
            field_name = check_identifier(go_name(f.wire_name), where)
            if not isinstance(value, ir.Const):
                if field_name in taken:
                    raise GenerationError(
                        f"{where}: the Go field {name}.{field_name} is also {taken[field_name]}"
                    )
                taken[field_name] = f"the field {f.wire_name!r}"
            union = self.unions.inline.get((struct.name, f.wire_name), "")
            fields.append(FieldView(f, field_name, value, nullable, union))
        return StructView(struct, name, tuple(fields), self.unions.markers.get(name, ()))

    def _check_expr(self, expr: ir.TypeExpr, where: str, top: bool) -> None:
        """Inline untagged unions are named by the field they are in: one deeper is an error."""
        if isinstance(expr, ir.UnionOf) and not top:
            raise GenerationError(
                f"{where}: an untagged union inside an array or map has no Go name"
            )
        if isinstance(expr, ir.Const) and not top:
            raise GenerationError(f"{where}: a constant inside an array or map")
        for child in _children(expr):
            self._check_expr(child, where, top=False)

    def _enum(self, enum: ir.Enumeration) -> EnumView:
        name = self.go_names[enum.name]
        strings = all(isinstance(m.value, str) for m in enum.members)
        if not strings and not all(isinstance(m.value, int) for m in enum.members):
            raise GenerationError(f"{enum.pointer}: an enumeration of strings and integers")
        constants = tuple(
            EnumConstant(
                name + go_name(str(m.value) if strings or not m.title else m.title), m.value, m.doc
            )
            for m in enum.members
        )
        return EnumView(enum, name, "string" if strings else "int64", constants)

    def _uses_json(self) -> bool:
        exprs: list[ir.TypeExpr] = [f.value for s in self.structs.values() for f in s.fields]
        exprs += [a.target for a in self.aliases.values()]
        exprs += [w.expr for w in self.wrappers]
        return any(_mentions_any(e) for e in exprs)

    def package_names(self) -> dict[str, str]:
        """Every exported package-level name and what it is; a clash is an error."""
        names: dict[str, str] = {}

        def add(name: str, what: str) -> None:
            if name in names:
                raise GenerationError(
                    f"{self.edition.source}: the Go name {name!r} is both {names[name]} and {what}"
                )
            names[name] = what

        for fixed in FIXED_NAMES:
            add(fixed, "a table of the edition")
        for d in self.edition.definitions:
            if not (isinstance(d, ir.Alias) and self.go_names[d.name] in self.unions.interfaces):
                add(self.go_names[d.name], f"the type {d.name}")
        for interface in self.unions.interfaces.values():
            if interface.tagged is None:
                add(interface.name, f"the union {interface.schema_name}")
            add("Decode" + interface.name, f"the decoder of {interface.schema_name}")
        for wrapper in self.wrappers:
            add(wrapper.name, f"a member of the union {wrapper.union}")
        for enum in self.enums.values():
            for constant in enum.constants:
                add(constant.name, f"the constant {constant.value!r} of {enum.definition.name}")
        return names


def _children(expr: ir.TypeExpr) -> tuple[ir.TypeExpr, ...]:
    if isinstance(expr, ir.Array):
        return (expr.items,)
    if isinstance(expr, ir.Map):
        return (expr.values,)
    if isinstance(expr, ir.Nullable):
        return (expr.inner,)
    if isinstance(expr, ir.UnionOf):
        return expr.options
    return ()


def _mentions_any(expr: ir.TypeExpr) -> bool:
    return isinstance(expr, ir.AnyValue) or any(_mentions_any(c) for c in _children(expr))
