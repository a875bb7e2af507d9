"""Each edition's client-state table: the IR's state annotations placed on the wire, for every
target to render as data (`docs/ir.md`, client-held state).

An annotation sits on a definition (`RequestPermissionRequest`) or on one variant of a union
(`SessionUpdate`'s `tool_call_update`). A client meets it as part of one message: the params of
a request or notification, the result of a response, or the union-typed field of a
notification's params (`session/update`'s `update`). `state_table(edition)` finds that place for
each annotation: its method, the part of the message (`params`, `result`), the field holding the
union and its tag, and the paths of the message that hold the session's id, from the
definition's `x-scope` (`session`), else its `sessionId` field (a response's own, then its
request's). The runtimes read the messages as one shape, the state message:
`{"method": …, "params": …}` for a request or notification, `{"method": …, "params": <the
request's>, "result": …}` for a response.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.targets.kit.fields import flat_fields

PARAMS, RESULT = "params", "result"
SESSION = "session"
SESSION_ID = "sessionId"


@dataclass(frozen=True, slots=True)
class TableEffect:
    """An `ir.StateEffect` with what the schema says of its value: `encoding` `base64` (an
    append of independently encoded chunks joins their bytes, `TerminalOutputChunk.data`)."""

    scope: str
    action: str
    target: str
    id: str | None
    field: str | None
    value: str | None
    fallback: str | None
    encoding: str | None


@dataclass(frozen=True, slots=True)
class StateEntry:
    """One annotation where a client meets it."""

    method: str
    part: str
    """`params` (a request or notification) or `result` (a response)."""
    at: str | None
    """The field of the params holding the annotated union (`update`); None: the part itself."""
    tag: str | None
    """The union's tag property (`sessionUpdate`), left out of the values the message gives."""
    variant: str | None
    """The tag's value (`tool_call_update`); None: the part itself is annotated."""
    session: tuple[str, ...]
    """The dotted paths of the state message that may hold the session id, the first present
    wins (`params.sessionId`); empty for a message that changes only agent state."""
    effects: tuple[TableEffect, ...]
    pointer: str
    rule: str | None
    """None: the schema's own `x-state`; else the rule-table entry (`SessionUpdate.plan`)."""


@dataclass(frozen=True, slots=True)
class StateTable:
    entries: tuple[StateEntry, ...]
    meta: str
    """The `_meta` policy of every upsert (`ir.MetaPolicy` value): the edition's `_meta` rule
    (v2 "patches the stored metadata by top-level key", said on each of its upsert types;
    v1 merges), `replace` where the edition has none."""
    turn: str | None
    """The request that starts a prompt turn (`session/prompt`), where an effect is keyed by
    the turn (`fallback="turn"`); else None."""
    unplaced: tuple[str, ...] = ()
    """Pointers of annotations no method carries (none in a published schema)."""


def state_table(edition: ir.Edition) -> StateTable:
    """The client-state table of `edition`, in the IR's annotation order."""
    entries: list[StateEntry] = []
    unplaced: list[str] = []
    for annotation in edition.state:
        place = _place(edition, annotation.at.definition)
        if place is None:
            unplaced.append(annotation.at.pointer)
            continue
        method, part, at, tag = place
        entries.append(
            StateEntry(
                method=method.name,
                part=part,
                at=at,
                tag=tag,
                variant=annotation.at.variant,
                session=_session_paths(edition, method, part),
                effects=tuple(
                    _effect(edition, _payload(edition, method, part, at, annotation), e)
                    for e in annotation.effects
                ),
                pointer=annotation.at.pointer,
                rule=annotation.rule,
            )
        )
    meta = edition.behaviour.meta[0].policy.value if edition.behaviour.meta else "replace"
    keyed_by_turn = any(e.fallback == "turn" for a in edition.state for e in a.effects)
    lifecycle = edition.behaviour.lifecycle
    turn = lifecycle.prompt if keyed_by_turn and lifecycle is not None else None
    return StateTable(tuple(entries), meta, turn, tuple(unplaced))


Place = tuple[ir.Method, str, str | None, str | None]


def _place(edition: ir.Edition, definition: str) -> Place | None:
    """(method, part, field, tag) where `definition` arrives: a method's params or result, else
    a field of a method's params typed by it (a tagged union)."""
    for method in edition.methods:
        if method.params == definition:
            return method, PARAMS, None, None
        if method.result == definition:
            return method, RESULT, None, None
    union = _definition(edition, definition)
    tag = union.tag if isinstance(union, ir.TaggedUnion) else None
    for method in edition.methods:
        for field in _fields(edition, method.params):
            if isinstance(field.type, ir.Ref) and field.type.name == definition:
                return method, PARAMS, field.wire_name, tag
    return None


def _payload(
    edition: ir.Edition, method: ir.Method, part: str, at: str | None, note: ir.StateAnnotation
) -> str | None:
    """The name of the struct an annotated message's effects read from."""
    if at is None:
        return method.params if part == PARAMS else method.result
    union = _definition(edition, note.at.definition)
    if isinstance(union, ir.TaggedUnion) and note.at.variant is not None:
        variant = union.variant(note.at.variant)
        return None if variant is None else variant.type.name
    return None


def _effect(edition: ir.Edition, payload: str | None, effect: ir.StateEffect) -> TableEffect:
    encoding = None
    if effect.value is not None:
        found = _type_at(edition, payload, effect.value.split("."))
        encoding = found.encoding if isinstance(found, ir.Primitive) else None
    return TableEffect(
        effect.scope,
        effect.action,
        effect.target,
        effect.id,
        effect.field,
        effect.value,
        effect.fallback,
        encoding,
    )


def _type_at(edition: ir.Edition, name: str | None, path: list[str]) -> ir.TypeExpr | None:
    """The type of the dotted `path` under the struct `name` (refs and nullables followed)."""
    found = next((f for f in _fields(edition, name) if f.wire_name == path[0]), None)
    kind = None if found is None else found.type
    if isinstance(kind, ir.Nullable):
        kind = kind.inner
    if len(path) == 1 or not isinstance(kind, ir.Ref):
        return kind if len(path) == 1 else None
    return _type_at(edition, kind.name, path[1:])


def _session_paths(edition: ir.Edition, method: ir.Method, part: str) -> tuple[str, ...]:
    scoped = next((s for s in edition.scopes if s.at.definition == method.params), None)
    if part == PARAMS and scoped is not None:
        paths = dict(scoped.keys).get(SESSION, ())
        return tuple(f"{PARAMS}.{path}" for path in paths)
    found = []
    for where, name in ((RESULT, method.result), (PARAMS, method.params)):
        if where == RESULT and part != RESULT:
            continue
        if any(f.wire_name == SESSION_ID for f in _fields(edition, name)):
            found.append(f"{where}.{SESSION_ID}")
    return tuple(found)


def _definition(edition: ir.Edition, name: str | None) -> ir.Definition | None:
    return next((d for d in edition.definitions if d.name == name), None)


def _fields(edition: ir.Edition, name: str | None) -> tuple[ir.Field, ...]:
    """A struct's fields, flat (`kit.fields`; an alias is followed; a tagged union's: those every
    variant has)."""
    definition = _definition(edition, name)
    if isinstance(definition, ir.Alias) and isinstance(definition.target, ir.Ref):
        return _fields(edition, definition.target.name)
    if isinstance(definition, ir.TaggedUnion) and definition.variants:
        each = [_fields(edition, v.type.name) for v in definition.variants]
        names = [{f.wire_name for f in fields} for fields in each[1:]]
        return tuple(f for f in each[0] if all(f.wire_name in n for n in names))
    if not isinstance(definition, ir.Struct):
        return ()
    return flat_fields(definition, {d.name: d for d in edition.definitions})
