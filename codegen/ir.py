"""The typed intermediate representation: everything a language target renders from.

Targets never see JSON Schema. `codegen.lowering` turns each validated schema document into an
`Edition` of typed definitions and methods; a `Specification` (the IR root) holds every pinned
edition (protocol `v1`/`v2`, channel stable/unstable) of one upstream release.

Three layers, each frozen:
- **type expressions** (`TypeExpr`): what a field or alias holds: a primitive with its format and
  constraints, a constant, an inline enum, an array, a string-keyed map, a reference to a named
  definition, any JSON value, a nullable type, or an untagged union;
- **definitions** (`Definition`): the named types: `Struct` (fields, `allOf` bases), `Enumeration`
  (open or closed), `TaggedUnion` (tag property, tag → variant map, default variant, catch-all) and
  `Alias`;
- **the protocol surface**: `Method`s (name, kind, handling side, params and result types), `Role`s
  (which side handles which method, as data), `TurnRule`s (ACP's feature-level cancellation) and
  `ErrorCode`s.

Absence, `null` and a value are kept apart everywhere: a field is `required` or not, and its type is
`Nullable` or not; the two never merge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeAlias


class Stability(StrEnum):
    STABLE = "stable"
    UNSTABLE = "unstable"


# --- type expressions -------------------------------------------------------------------------


class PrimitiveKind(StrEnum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"


@dataclass(frozen=True, slots=True)
class Constraints:
    """The validation keywords the IR keeps (JSON Schema names in snake case)."""

    minimum: int | float | None = None
    maximum: int | float | None = None
    min_length: int | None = None
    pattern: str | None = None
    min_items: int | None = None

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.minimum, self.maximum, self.min_length))


NO_CONSTRAINTS = Constraints()


@dataclass(frozen=True, slots=True)
class Primitive:
    """A JSON string, integer, number or boolean; `format` as the schema gives it (`uint64`,
    `uri`, `date-time`, …)."""

    kind: PrimitiveKind
    format: str | None = None
    constraints: Constraints = NO_CONSTRAINTS


@dataclass(frozen=True, slots=True)
class Const:
    """Exactly one JSON value (`const`), such as a union variant's tag."""

    value: str | int | float | bool


@dataclass(frozen=True, slots=True)
class InlineEnum:
    """An `enum` keyword on a property: one of these values."""

    values: tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Array:
    items: TypeExpr
    constraints: Constraints = NO_CONSTRAINTS


@dataclass(frozen=True, slots=True)
class Map:
    """A JSON object with string keys and values of one type (`additionalProperties`)."""

    values: TypeExpr


@dataclass(frozen=True, slots=True)
class Ref:
    """A named definition of the same edition."""

    name: str


@dataclass(frozen=True, slots=True)
class AnyValue:
    """Any JSON value (a schema without constraints)."""


@dataclass(frozen=True, slots=True)
class NullType:
    """Only `null` (a branch of its own, never a field's whole type in ACP)."""


@dataclass(frozen=True, slots=True)
class Nullable:
    """`inner` or `null`: `type: [T, "null"]` or `anyOf: [T, {type: null}]`."""

    inner: TypeExpr


@dataclass(frozen=True, slots=True)
class UnionOf:
    """One of `options`, told apart by shape (no tag): `anyOf` of primitives or refs."""

    options: tuple[TypeExpr, ...]


TypeExpr: TypeAlias = (
    Primitive | Const | InlineEnum | Array | Map | Ref | AnyValue | NullType | Nullable | UnionOf
)


def referenced_names(expr: TypeExpr) -> tuple[str, ...]:
    """Every definition name `expr` refers to, in order of appearance."""
    if isinstance(expr, Ref):
        return (expr.name,)
    if isinstance(expr, Array):
        return referenced_names(expr.items)
    if isinstance(expr, Map):
        return referenced_names(expr.values)
    if isinstance(expr, Nullable):
        return referenced_names(expr.inner)
    if isinstance(expr, UnionOf):
        return tuple(name for option in expr.options for name in referenced_names(option))
    return ()


# --- definitions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldPolicy:
    """The schema's lenient-decoding rules for one field (`x-deserialize-*`)."""

    default_on_error: bool = False
    """A value that does not validate is dropped; the message is kept."""
    skip_invalid_items: bool = False
    """Array items that do not validate are dropped; the rest are kept."""
    default_on_null: bool = False
    """`null` means "use the default"."""

    def __bool__(self) -> bool:
        return self.default_on_error or self.skip_invalid_items or self.default_on_null


NO_POLICY = FieldPolicy()


class NoDefault:
    """The marker of a field without a `default` (distinct from a default of `null`)."""

    _instance: NoDefault | None = None

    def __new__(cls) -> NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = NoDefault()
META_WIRE_NAME = "_meta"


@dataclass(frozen=True, slots=True)
class Field:
    """One property of a struct. `required` says whether it may be absent; whether it may be `null`
    is its type's business (`Nullable`): the two are independent."""

    wire_name: str
    type: TypeExpr
    required: bool
    doc: str = ""
    default: Any = NO_DEFAULT
    policy: FieldPolicy = NO_POLICY
    pointer: str = ""

    @property
    def nullable(self) -> bool:
        return isinstance(self.type, Nullable)

    @property
    def is_meta(self) -> bool:
        """`_meta`: ACP's extension object, a field of its own, never merged into others."""
        return self.wire_name == META_WIRE_NAME

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@dataclass(frozen=True, slots=True)
class Struct:
    """A JSON object with known fields. `bases` are the structs it is composed from (`allOf`), whose
    fields it has too; `fields` are its own (a field redeclared here overrides the base's)."""

    name: str
    pointer: str
    doc: str
    stability: Stability
    fields: tuple[Field, ...]
    bases: tuple[str, ...] = ()
    closed: bool = False
    """`additionalProperties: false`: no other fields. ACP leaves its objects open."""


@dataclass(frozen=True, slots=True)
class EnumMember:
    value: str | int
    doc: str = ""
    title: str = ""


@dataclass(frozen=True, slots=True)
class Enumeration:
    """A set of constants. `open`: any other value of the same JSON type is accepted too (the
    schema lists a catch-all branch, as ACP does for extensible kinds)."""

    name: str
    pointer: str
    doc: str
    stability: Stability
    members: tuple[EnumMember, ...]
    open: bool


@dataclass(frozen=True, slots=True)
class Variant:
    """One branch of a tagged union: objects whose `tag` property equals `tag`."""

    tag: str
    type: Ref
    doc: str = ""


@dataclass(frozen=True, slots=True)
class TaggedUnion:
    """Objects told apart by the value of one property, `tag` (its wire name).

    `tags_declared`: the schema names the tag in a `discriminator` keyword; otherwise it was
    inferred from the `const` every branch gives the same property. `default` is the variant of an
    object without the tag (ACP's untagged `agent` auth method). `catch_all` is the struct that
    keeps a variant this schema does not know, with all its fields (`catch_all_declared`: the
    schema spells it out as an "other" branch; otherwise it is implied: ACP unions are open)."""

    name: str
    pointer: str
    doc: str
    stability: Stability
    tag: str
    variants: tuple[Variant, ...]
    catch_all: str
    catch_all_declared: bool
    tags_declared: bool
    default: Ref | None = None

    def variant(self, tag: str) -> Variant | None:
        return next((v for v in self.variants if v.tag == tag), None)


@dataclass(frozen=True, slots=True)
class Alias:
    """A name for a type expression (`SessionId` → string, `RequestId` → integer or string)."""

    name: str
    pointer: str
    doc: str
    stability: Stability
    target: TypeExpr


Definition: TypeAlias = Struct | Enumeration | TaggedUnion | Alias


def dependencies(definition: Definition) -> tuple[str, ...]:
    """The names a definition refers to (bases first), without duplicates."""
    names: list[str] = []
    if isinstance(definition, Struct):
        names += definition.bases
        for f in definition.fields:
            names += referenced_names(f.type)
    elif isinstance(definition, TaggedUnion):
        names += [v.type.name for v in definition.variants]
        names.append(definition.catch_all)
        if definition.default is not None:
            names.append(definition.default.name)
    elif isinstance(definition, Alias):
        names += referenced_names(definition.target)
    return tuple(dict.fromkeys(names))


# --- the protocol surface ---------------------------------------------------------------------


class MethodKind(StrEnum):
    REQUEST = "request"
    NOTIFICATION = "notification"


class Side(StrEnum):
    """`x-side`: the side that handles a method. `both`: either; `protocol`: every side's
    dispatcher (`$/cancel_request`); `proxy`: the proxy-chain role of the unstable schemas."""

    AGENT = "agent"
    CLIENT = "client"
    BOTH = "both"
    PROTOCOL = "protocol"
    PROXY = "proxy"


@dataclass(frozen=True, slots=True)
class Method:
    """One JSON-RPC method. A request and a notification of one name are two `Method`s."""

    name: str
    kind: MethodKind
    side: Side
    params: str
    result: str | None
    stability: Stability
    doc: str

    @property
    def key(self) -> tuple[str, MethodKind]:
        return (self.name, self.kind)


@dataclass(frozen=True, slots=True)
class TurnRule:
    """ACP's feature-level cancellation: `cancel` (a notification with a `sessionId`) ends the
    session's in-flight `method` requests with `result`, never an error. `received`: the role
    handling `method` receives `cancel` (the agent's prompt); otherwise it sends it (the client's
    pending permission requests)."""

    method: str
    cancel: str
    received: bool
    result: Mapping[str, Any]
    spec: str
    """The rule's source, quoted."""


@dataclass(frozen=True, slots=True)
class Role:
    """One side of the protocol as data: the methods it handles and the one it talks to."""

    name: str
    peer: str
    requests: tuple[Method, ...]
    notifications: tuple[Method, ...]
    turn_rule: TurnRule | None = None


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: int
    name: str
    doc: str


@dataclass(frozen=True, slots=True)
class Edition:
    """One schema file: protocol `v1`/`v2`, stable or unstable, lowered."""

    protocol: str
    channel: Stability
    source: str
    sha256: str
    definitions: tuple[Definition, ...]
    methods: tuple[Method, ...]
    roles: tuple[Role, ...]
    error_codes: tuple[ErrorCode, ...]
    def_names: frozenset[str] = field(default_factory=frozenset)
    """The schema's own `$defs` names (every other definition was named by a rule)."""

    @property
    def protocol_version(self) -> int:
        """The `protocolVersion` number this edition speaks (`v2` → 2)."""
        return int(self.protocol.removeprefix("v"))

    @property
    def key(self) -> str:
        """`v1`, `v1/unstable`, …: where the edition lives in a target's output."""
        return self.protocol + ("" if self.channel is Stability.STABLE else "/unstable")

    def definition(self, name: str) -> Definition:
        for definition in self.definitions:
            if definition.name == name:
                return definition
        raise KeyError(name)

    def requests(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind is MethodKind.REQUEST)

    def notifications(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind is MethodKind.NOTIFICATION)

    def role(self, name: str) -> Role:
        return next(r for r in self.roles if r.name == name)


@dataclass(frozen=True, slots=True)
class Specification:
    """The IR root: every pinned edition of one upstream release (`origin`)."""

    origin: str
    editions: tuple[Edition, ...]

    def edition(self, protocol: str, channel: Stability) -> Edition | None:
        return next(
            (e for e in self.editions if e.protocol == protocol and e.channel is channel), None
        )

    @property
    def protocols(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.protocol for e in self.editions))
