"""The conformance data of an edition (`acp_protocol.<edition>.conformance`), from the IR only.

The suite (`python -m acp_protocol.conformance`, hand-written in templates/python/conformance/)
makes its cases from this data, never from a hand list: the methods each side handles, the
capability that advertises each optional agent method (quoted from the schema's description of
the capability's field), the behaviour rules with their quotes and levels, the negotiation, the
prompt turn, the named error codes, and the request id (whether it admits null, with the schema's
description of it). A level is read from the words a rule rests on: "MUST", "MUST NOT",
"REQUIRED" or "SHALL" → MUST, "SHOULD" or "RECOMMENDED" → SHOULD, anything else informative.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.ir.behaviour import Capability, Negotiation, PromptLifecycle, RuleRecord
from acp_codegen.targets.python.conformance_lifecycle import LifecycleView, lifecycle_view
from acp_codegen.targets.python.conformance_schema import (
    QuoteView,
    definition_pointer,
    field_quote,
    find_definition,
    find_field,
    find_method,
    flat,
    hash_pointer,
    level,
    ref_name,
)


@dataclass(frozen=True, slots=True)
class RuleView:
    name: str
    level: str
    spec: str
    quotes: tuple[QuoteView, ...]


@dataclass(frozen=True, slots=True)
class CapabilityView:
    method: str
    path: tuple[str, ...]
    value: object
    requires: tuple[str, ...]
    quote: QuoteView


@dataclass(frozen=True, slots=True)
class PromptView:
    method: str
    answer: str
    cancel: str
    update: str
    end_turn: str
    cancelled: str
    stop_reasons: tuple[str, ...]
    level: str
    stop_reason_quote: QuoteView | None
    cancelled_quote: QuoteView | None
    lifecycle: LifecycleView | None
    """The lifecycle answered at insertion (v2), else None."""


@dataclass(frozen=True, slots=True)
class ConformanceView:
    negotiation: Negotiation
    negotiation_rule: RuleView | None
    version_quote: QuoteView | None
    capabilities: tuple[CapabilityView, ...]
    rules: tuple[RuleView, ...]
    prompt: PromptView | None
    error_codes: tuple[tuple[int, str, QuoteView], ...]
    request_id: QuoteView | None
    """The schema's description of `RequestId` (None: the edition has none)."""
    null_request_id: bool
    """Whether the edition's `RequestId` admits null (v1: "a String, Number, or NULL value")."""


def _admits_null(edition: ir.Edition, name: str) -> bool:
    try:
        definition = edition.definition(name)
    except KeyError:
        return False
    expression = definition.target if isinstance(definition, ir.Alias) else None
    if isinstance(expression, ir.Nullable):
        return True
    if isinstance(expression, ir.UnionOf):
        return any(isinstance(o, (ir.NullType, ir.Nullable)) for o in expression.options)
    return False


def _request_id_quote(edition: ir.Edition) -> QuoteView | None:
    try:
        definition = edition.definition("RequestId")
    except KeyError:
        return None
    if not definition.doc:
        return None
    return QuoteView(flat(definition.doc), definition_pointer(edition, "RequestId"))


def conformance_view(edition: ir.Edition) -> ConformanceView:
    behaviour = edition.behaviour
    rules = tuple(_rule(r) for r in behaviour.rules)
    negotiation = behaviour.negotiation
    negotiation_rule = next(
        (r for r in rules if _is_rule_of(r, behaviour.rules, negotiation.spec)), None
    )
    initialize = find_method(edition, negotiation.method, ir.MethodKind.REQUEST)
    version_quote = None
    if initialize is not None and initialize.result is not None:
        version_quote = field_quote(edition, initialize.result, (negotiation.field,))
    return ConformanceView(
        negotiation=negotiation,
        negotiation_rule=negotiation_rule,
        version_quote=version_quote,
        capabilities=tuple(_capability(edition, c) for c in behaviour.capabilities),
        rules=rules,
        prompt=_prompt(edition, rules),
        error_codes=tuple(
            (c.code, c.name, QuoteView(flat(c.doc), definition_pointer(edition, "ErrorCode")))
            for c in edition.error_codes
        ),
        request_id=_request_id_quote(edition),
        null_request_id=_admits_null(edition, "RequestId"),
    )


def _rule(record: RuleRecord) -> RuleView:
    quotes = tuple(QuoteView(q.text, hash_pointer(q.pointer)) for q in record.quotes)
    said = [q.text for q in quotes] or [record.spec]
    return RuleView(record.name, level(*said), record.spec, quotes)


def _is_rule_of(view: RuleView, records: tuple[RuleRecord, ...], spec: str) -> bool:
    return any(r.name == view.name and r.spec == spec for r in records)


def _capability(edition: ir.Edition, capability: Capability) -> CapabilityView:
    initialize = find_method(edition, "initialize", ir.MethodKind.REQUEST)
    quote = None
    if initialize is not None and initialize.result is not None:
        quote = field_quote(edition, initialize.result, capability.path)
    return CapabilityView(
        capability.method,
        capability.path,
        capability.value,
        capability.requires,
        quote or QuoteView(capability.spec, None),
    )


def _prompt(edition: ir.Edition, rules: tuple[RuleView, ...]) -> PromptView | None:
    lifecycle = edition.behaviour.lifecycle
    if lifecycle is None:
        return None
    prompt = find_method(edition, lifecycle.prompt, ir.MethodKind.REQUEST)
    reasons: tuple[str, ...] = ()
    cancelled = stop_reason = None
    if prompt is not None and prompt.result is not None:
        reasons, cancelled = _stop_reasons(edition, prompt.result, lifecycle.cancelled)
        stop_reason = field_quote(edition, prompt.result, ("stopReason",))
    return PromptView(
        lifecycle.prompt,
        lifecycle.answer.value,
        lifecycle.cancel,
        _update_notification(edition, lifecycle),
        lifecycle.end_turn,
        lifecycle.cancelled,
        reasons,
        next((r.level for r in rules if r.spec == lifecycle.spec), "informative"),
        stop_reason,
        cancelled,
        lifecycle_view(edition),
    )


def _update_notification(edition: ir.Edition, lifecycle: PromptLifecycle) -> str:
    """The notification that streams a turn's updates to the client: the lifecycle's own (v2),
    else the client's notification in the prompt's namespace (v1's `session/update`)."""
    if lifecycle.states is not None:
        return lifecycle.states.notification
    namespace = lifecycle.prompt.split("/")[0] + "/"
    client = edition.role("client").notifications
    return next((m.name for m in client if m.name.startswith(namespace)), "")


def _stop_reasons(
    edition: ir.Edition, result: str, cancelled: str
) -> tuple[tuple[str, ...], QuoteView | None]:
    """The values of the prompt result's `stopReason` and the schema's words on `cancelled`
    (v1; a v2 prompt result has no stop reason)."""
    field = find_field(edition, result, "stopReason")
    if field is None:
        return (), None
    target = ref_name(field.type)
    definition = find_definition(edition, target) if target else None
    if not isinstance(definition, ir.Enumeration):
        return (), None
    values = tuple(str(m.value) for m in definition.members)
    member = next((m for m in definition.members if m.value == cancelled), None)
    quote = None
    if member is not None and member.doc:
        quote = QuoteView(flat(member.doc), hash_pointer(definition.pointer))
    return values, quote
