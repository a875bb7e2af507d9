"""What a behaviour rule needs of a schema (`Needs`), and the rule itself (`Rule`): the shape of
the rule tables (`lowering.rules`, `lowering.state_rules`), which `lowering.behaviour` applies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_codegen.ir import MethodKind

REQUEST, NOTIFICATION = MethodKind.REQUEST, MethodKind.NOTIFICATION


@dataclass(frozen=True, slots=True)
class Needs:
    """What a rule needs of a schema. Every need but `quotes` decides whether the rule applies
    to an edition at all; `quotes` are the schema's own words the rule rests on: a quote the
    schema no longer says is a finding for a person to review, never a reason to refuse it."""

    methods: tuple[tuple[str, MethodKind], ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    """(definition, property): the property exists on it (own, or through `allOf`)."""
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(definition, wire keys): each key is a property of the one before (through refs)."""
    tags: tuple[tuple[str, str, str], ...] = ()
    """(union definition, tag property, value): a branch carries that constant."""
    values: tuple[tuple[str, str, Any], ...] = ()
    """(definition, property, value): the property's schema accepts the value."""
    accepts: tuple[tuple[str, Any], ...] = ()
    """(definition, value): the definition accepts the value (the rule's answer)."""
    codes: tuple[int, ...] = ()
    """Named `ErrorCode` members."""
    quotes: tuple[tuple[str, str | tuple[str, ...]], ...] = ()
    """(definition, text): a description under the definition says it (whitespace and case
    folded). A tuple gives the wordings the rule accepts, newest last: a person who reviewed a
    rewording and found the rule still holds adds it (docs/schemas.md, review findings)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One behaviour rule of one protocol: the IR value it contributes, and what it needs."""

    protocol: str
    name: str
    value: Any
    needs: Needs = field(default_factory=Needs)
