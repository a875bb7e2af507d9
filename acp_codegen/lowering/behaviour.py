"""Which behaviour rules an edition carries out: the rule table (`acp_codegen.lowering.rules`)
checked against one schema document.

A rule applies where the edition has everything it is about (its methods, types, fields, tags,
accepted values and error codes); where one of them is missing, the rule is simply not part of
that edition: nothing is rendered for it and nothing fails. Where a rule applies but a sentence of
the schema it rests on was reworded or removed, the rule still applies and the edition gets one
review finding for the rule, naming it and the JSON pointer where the text was (`acp-codegen
generate` prints it; `--strict` fails on it). Single-valued rules (negotiation, lifecycle) are
alternatives: the first one an edition supports is its rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from acp_codegen.ir import Method, TurnRule
from acp_codegen.ir.behaviour import (
    Behaviour,
    CancelOutcome,
    Capability,
    MetaRule,
    Negotiation,
    PromptAnswer,
    PromptLifecycle,
    PromptRetry,
    Quote,
    ResumeReplay,
    RuleRecord,
    TargetCancel,
)
from acp_codegen.ir.state import StateRule
from acp_codegen.lowering.context import def_pointer
from acp_codegen.lowering.nodes import JsonObject
from acp_codegen.lowering.rule_needs import Needs, Rule
from acp_codegen.lowering.rules import RULES as BEHAVIOUR_RULES
from acp_codegen.lowering.schema_queries import (
    accepts,
    find_quote,
    property_of,
    tag_values,
)
from acp_codegen.lowering.state_rules import STATE_RULES
from acp_codegen.problems import SchemaProblem, pointer_join

__all__ = ["RULES", "Needs", "Rule", "lower_behaviour"]

RULES: tuple[Rule, ...] = BEHAVIOUR_RULES + STATE_RULES
"""Every rule of a published schema: the behaviour rules, then the client-state table."""

SINGLE_VALUED = (Negotiation, PromptLifecycle, ResumeReplay)
"""Rule values an edition has at most one of: later rules of the kind are alternatives."""


def lower_behaviour(
    doc: JsonObject,
    *,
    protocol: str,
    methods: Sequence[Method],
    source: str,
    rules: Sequence[Rule],
) -> tuple[Behaviour, tuple[StateRule, ...], tuple[SchemaProblem, ...]]:
    """The behaviour of one edition from the `rules` of its protocol that apply to `doc` (its
    turn rules among them), its client-state rules, and one review finding per applied rule
    whose quoted text `doc` no longer says."""
    applied: list[tuple[Rule, RuleRecord]] = []
    absent: list[RuleRecord] = []
    for rule in (r for r in rules if r.protocol == protocol):
        reason = next(_unmet(doc, methods, rule.needs), None)
        taken = isinstance(rule.value, SINGLE_VALUED) and any(
            type(done.value) is type(rule.value) for done, _ in applied
        )
        if reason is not None:
            absent.append(RuleRecord(rule.name, rule.value.spec, reason=reason[1]))
        elif not taken:
            applied.append((rule, RuleRecord(rule.name, rule.value.spec, _quotes(doc, rule))))
    values = [rule.value for rule, _ in applied]
    negotiation = _one(values, Negotiation) or Negotiation(
        "initialize",
        "protocolVersion",
        int(protocol.removeprefix("v")),
        None,
        "no negotiation rule applies to this schema",
    )
    behaviour = Behaviour(
        negotiation=negotiation,
        lifecycle=_lifecycle(values),
        capabilities=tuple(v for v in values if isinstance(v, Capability)),
        meta=tuple(v for v in values if isinstance(v, MetaRule)),
        cancel_outcomes=tuple(v for v in values if isinstance(v, CancelOutcome)),
        target_cancels=tuple(v for v in values if isinstance(v, TargetCancel)),
        turn_rules=tuple(v for v in values if isinstance(v, TurnRule)),
        resume=_one(values, ResumeReplay),
        # The client-state rules are the state table's (`Edition.state`), not the router's.
        rules=tuple(record for rule, record in applied if not isinstance(rule.value, StateRule)),
        absent=tuple(absent),
    )
    review = tuple(
        _finding(source, protocol, record) for _, record in applied if record.unconfirmed
    )
    return behaviour, tuple(v for v in values if isinstance(v, StateRule)), review


def _lifecycle(values: list[Any]) -> PromptLifecycle | None:
    """The edition's prompt lifecycle, with the key of its `PromptRetry` rule where one applies
    to its prompt and the prompt is answered at insertion (a retry answers with a message id)."""
    lifecycle: PromptLifecycle | None = _one(values, PromptLifecycle)
    retry: PromptRetry | None = _one(values, PromptRetry)
    if lifecycle is None or retry is None or lifecycle.answer is not PromptAnswer.INSERTION:
        return lifecycle
    return (
        replace(lifecycle, retry_key=retry.key) if retry.prompt == lifecycle.prompt else lifecycle
    )


def _one(values: list[Any], kind: type[Any]) -> Any:
    return next((v for v in values if isinstance(v, kind)), None)


def _quotes(doc: JsonObject, rule: Rule) -> tuple[Quote, ...]:
    """Each quote of `rule` as `doc` says it: the first accepted wording found, with its
    pointer; else the newest wording, unconfirmed."""
    defs: JsonObject = doc.get("$defs", {})
    quotes = []
    for name, text in rule.needs.quotes:
        wordings = (text,) if isinstance(text, str) else text
        found = ((w, find_quote(defs, name, w)) for w in wordings)
        said = next(((w, p) for w, p in found if p is not None), (wordings[-1], None))
        quotes.append(Quote(name, *said))
    return tuple(quotes)


def _finding(source: str, protocol: str, record: RuleRecord) -> SchemaProblem:
    """One line for a rule whose quoted text is gone: where the first quote was expected, and
    every quote the schema no longer says."""
    missing = record.unconfirmed
    said = "; ".join(repr(q.text) for q in missing)
    return SchemaProblem(
        source,
        pointer_join(def_pointer(missing[0].definition), "description"),
        f"behaviour rule {protocol} {record.name!r} applies, but the schema no longer says {said}",
    )


def _unmet(doc: JsonObject, methods: Sequence[Method], needs: Needs) -> Iterator[tuple[str, str]]:
    """(pointer, what is missing) for each structural need `doc` does not meet (quotes aside)."""
    defs: JsonObject = doc.get("$defs", {})
    keys = {m.key for m in methods}
    for name, kind in needs.methods:
        if (name, kind) not in keys:
            yield "/$defs", f"the schema has no {kind.value} `{name}`"
    for def_name, prop in needs.fields:
        if def_name not in defs:
            yield def_pointer(def_name), f"the schema has no type `{def_name}`"
        elif property_of(defs, defs[def_name], prop) is None:
            yield def_pointer(def_name), f"`{def_name}` has no field `{prop}`"
    for def_name, path in needs.paths:
        node: Any = defs.get(def_name)
        for key in path:
            node = None if node is None else property_of(defs, node, key)
            if node is None:
                yield def_pointer(def_name), f"`{def_name}` has no `{'.'.join(path)}`"
                break
    for def_name, tag, value in needs.tags:
        if value not in tag_values(defs, defs.get(def_name), tag):
            yield def_pointer(def_name), f"`{def_name}` has no variant `{tag}: {value}`"
    for def_name, prop, value in needs.values:
        if not accepts(doc, property_of(defs, defs.get(def_name), prop), value):
            yield def_pointer(def_name), f"`{def_name}.{prop}` does not accept {value!r}"
    for def_name, value in needs.accepts:
        if def_name not in defs:
            yield def_pointer(def_name), f"the schema has no type `{def_name}`"
        elif not accepts(doc, {"$ref": f"#/$defs/{def_name}"}, value):
            yield def_pointer(def_name), f"`{def_name}` does not accept {value!r}"
    codes = set(tag_values(defs, defs.get("ErrorCode"), None))
    for code in needs.codes:
        if code not in codes:
            yield def_pointer("ErrorCode"), f"the schema names no error code {code}"
