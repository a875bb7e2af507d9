"""Lowering: a validated JSON Schema document → one typed IR `Edition` (see `acp_codegen.ir`).

The only code that reads JSON Schema after validation. Every `$defs` entry is lowered
(`definitions`), inline objects and unions get definitions named by rule (`naming`), then the
protocol surface is read (`surface`). Problems are collected over the whole document and raised
together as `SchemaProblems`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from acp_codegen.ir import Edition, Stability
from acp_codegen.lowering.behaviour import Rule, lower_behaviour
from acp_codegen.lowering.context import Lowering, def_pointer
from acp_codegen.lowering.definitions import lower_definition
from acp_codegen.lowering.naming import OVERRIDES, Overrides
from acp_codegen.lowering.nodes import JsonObject
from acp_codegen.lowering.state import lower_state, rule_annotations
from acp_codegen.lowering.surface import lower_error_codes, lower_methods, lower_roles
from acp_codegen.problems import SchemaProblems


def lower_edition(
    doc: JsonObject,
    *,
    protocol: str,
    channel: Stability,
    source: str,
    sha256: str,
    stable: Edition | None = None,
    overrides: Overrides = OVERRIDES,
    rules: Sequence[Rule] = (),
) -> Edition:
    """Lower one validated document. With `stable` (the stable edition of the same protocol),
    what only this edition has is marked `UNSTABLE`; without it everything gets `channel`.
    `rules`: the behaviour rules to apply (`lowering.rules.RULES` for published schemas; none
    for a partial schema): those the document supports become its behaviour, and a rule whose
    quoted text the document no longer says becomes a review finding (`Edition.review`)."""
    defs: JsonObject = doc["$defs"]
    stability_of = _stability_rule(channel, stable)
    ctx = Lowering(defs=defs, source=source, stability_of=stability_of, overrides=overrides)
    for name in defs:
        ctx.claim(name, def_pointer(name))
    for name, node in defs.items():
        lower_definition(ctx, name, node, def_pointer(name))
    state, scopes, state_problems = lower_state(defs, source)
    if ctx.problems or state_problems:
        raise SchemaProblems(ctx.problems + state_problems)
    methods = lower_methods(defs, stability_of)
    behaviour, state_rules, review = lower_behaviour(
        doc, protocol=protocol, methods=methods, source=source, rules=rules
    )
    state += rule_annotations(defs, state_rules, state)
    return Edition(
        protocol=protocol,
        channel=channel,
        source=source,
        sha256=sha256,
        definitions=tuple(sorted(ctx.definitions.values(), key=lambda d: d.name)),
        methods=methods,
        roles=lower_roles(methods),
        error_codes=lower_error_codes(ctx.definitions),
        behaviour=behaviour,
        def_names=frozenset(defs),
        state=state,
        scopes=scopes,
        review=review,
    )


def _stability_rule(channel: Stability, stable: Edition | None) -> Callable[[str], Stability]:
    if stable is None:
        return lambda name: channel
    known = (
        stable.def_names | {d.name for d in stable.definitions} | {m.name for m in stable.methods}
    )
    return lambda name: Stability.STABLE if name in known else Stability.UNSTABLE
