"""Lowering the schema's `x-state` and `x-scope` extensions into typed IR nodes (`ir.state`).

Every annotation under `$defs` becomes one node with its JSON pointer, in document order, whether
it sits on a definition, on one branch of a union (its `variant` is that branch's tag) or deeper.
A malformed annotation is a problem naming its pointer; an action this generator does not know is
kept as written (`StateEffect.known` is False), so a newer schema still generates.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acp_codegen.ir.state import (
    Annotated,
    ScopeAnnotation,
    StateAnnotation,
    StateEffect,
    StateRule,
)
from acp_codegen.lowering.nodes import JsonObject
from acp_codegen.problems import SchemaProblem, pointer_join

STATE, SCOPE = "x-state", "x-scope"
EFFECT_KEYS = ("action", "target", "id", "field", "value")


def lower_state(
    defs: JsonObject, source: str
) -> tuple[tuple[StateAnnotation, ...], tuple[ScopeAnnotation, ...], list[SchemaProblem]]:
    """The `x-state` and `x-scope` annotations of `defs`, and a problem for each malformed one."""
    states: list[StateAnnotation] = []
    scopes: list[ScopeAnnotation] = []
    problems: list[SchemaProblem] = []
    for name, node in defs.items():
        for keyword, value, at in _annotations(node, pointer_join("/$defs", name), name, None):
            found: list[str] = []
            if keyword == STATE:
                effects = _effects(value, found)
                if not found:
                    states.append(StateAnnotation(at, effects))
            else:
                keys = _scope_keys(value, found)
                if not found:
                    scopes.append(ScopeAnnotation(at, keys))
            problems += [SchemaProblem(source, at.pointer, message) for message in found]
    return tuple(states), tuple(scopes), problems


def rule_annotations(
    defs: JsonObject, rules: tuple[StateRule, ...], state: tuple[StateAnnotation, ...]
) -> tuple[StateAnnotation, ...]:
    """The client-state rules an edition applies (`lowering.state_rules`) as annotations on
    the union branch they name; a variant the schema annotates itself keeps the schema's."""
    annotated = {(a.at.definition, a.at.variant) for a in state}
    found = []
    for rule in rules:
        if (rule.definition, rule.variant) in annotated:
            continue
        union = defs.get(rule.definition, {})
        pointer = pointer_join("/$defs", rule.definition)
        for keyword in ("anyOf", "oneOf") if rule.variant is not None else ():
            for index, branch in enumerate(union.get(keyword, [])):
                if _tag_of(branch) == rule.variant:
                    pointer = pointer_join(pointer_join(pointer, keyword), index)
        at = Annotated(rule.definition, rule.variant, pointer)
        name = rule.definition if rule.variant is None else f"{rule.definition}.{rule.variant}"
        found.append(StateAnnotation(at, rule.effects, name))
    return tuple(found)


def _annotations(
    node: Any, pointer: str, definition: str, variant: str | None
) -> Iterator[tuple[str, Any, Annotated]]:
    """(keyword, value, where) for each annotation under `node`, in document order; a branch of
    a union (`anyOf`/`oneOf` item) names its tag constant as the variant of what is inside."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _annotations(item, pointer_join(pointer, index), definition, variant)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        here = pointer_join(pointer, key)
        if key in (STATE, SCOPE):
            yield key, value, Annotated(definition, variant, here)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            for index, branch in enumerate(value):
                tag = _tag_of(branch)
                yield from _annotations(
                    branch, pointer_join(here, index), definition, tag or variant
                )
        else:
            yield from _annotations(value, here, definition, variant)


def _tag_of(branch: Any) -> str | None:
    """The one string constant among a union branch's properties (its tag), if exactly one."""
    if not isinstance(branch, dict):
        return None
    consts = [
        prop["const"]
        for prop in branch.get("properties", {}).values()
        if isinstance(prop, dict) and isinstance(prop.get("const"), str)
    ]
    return consts[0] if len(consts) == 1 else None


def _effects(value: Any, problems: list[str]) -> tuple[StateEffect, ...]:
    if not isinstance(value, dict):
        problems.append("`x-state` must be an object of state scopes")
        return ()
    effects: list[StateEffect] = []
    for scope, actions in value.items():
        if not isinstance(actions, list):
            problems.append(f"`x-state` scope {scope!r} must be an array of effects")
            continue
        for index, effect in enumerate(actions):
            where = f"`x-state` {scope}[{index}]"
            if not isinstance(effect, dict) or not all(
                isinstance(effect.get(k), str) for k in ("action", "target")
            ):
                problems.append(f"{where} needs string `action` and `target`")
                continue
            odd = [k for k in effect if k not in EFFECT_KEYS or not isinstance(effect[k], str)]
            if odd:
                problems.append(f"{where}: unexpected or non-string {', '.join(sorted(odd))}")
                continue
            effects.append(StateEffect(scope, **effect))
    return tuple(effects)


def _scope_keys(value: Any, problems: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict) or not all(
        isinstance(paths, list) and all(isinstance(p, str) for p in paths)
        for paths in value.values()
    ):
        problems.append("`x-scope` must map each scope to an array of dotted paths")
        return ()
    return tuple((scope, tuple(paths)) for scope, paths in value.items())
