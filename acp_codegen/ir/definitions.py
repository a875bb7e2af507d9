"""IR definitions: the named types of an edition (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias

from acp_codegen.ir.expressions import Nullable, Ref, TypeExpr, referenced_names


class Stability(StrEnum):
    STABLE = "stable"
    UNSTABLE = "unstable"


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
