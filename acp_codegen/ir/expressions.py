"""IR type expressions: what a field or an alias holds (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias


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
    max_length: int | None = None
    """In characters (Unicode code points, as JSON Schema counts them; `IdempotencyKey`)."""

    def __bool__(self) -> bool:
        bounds = (self.minimum, self.maximum, self.min_length, self.max_length)
        return any(v is not None for v in bounds)


NO_CONSTRAINTS = Constraints()


@dataclass(frozen=True, slots=True)
class Primitive:
    """A JSON string, integer, number or boolean; `format` as the schema gives it (`uint64`,
    `uri`, `date-time`, …)."""

    kind: PrimitiveKind
    format: str | None = None
    constraints: Constraints = NO_CONSTRAINTS
    encoding: str | None = None
    """`contentEncoding` (`base64`: a string of encoded bytes, `TerminalOutputChunk.data`)."""


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
