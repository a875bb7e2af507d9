"""The fast path of the client state: the same result as `SessionState.step` then `commit`, in
one call, for the messages a session sends most (a chunk appended to a message that exists, a
tool call upserted, a run state replaced), as `session/update` carries them.

Layer: typed layer (pure data; `client_state.ClientState.apply` tries it first). It is made per
route from the table's shapes, never from the update it is about: a route whose params name the
session one key down and hold the tagged update one key down (`route_path`), and per variant a
`Plain` effect (`plain`: one session effect, single-key paths, no field for an upsert or
replace, a list to append to). Whenever anything is not plain (another method, a session or a
collection not made yet, a string or base64 append, a missing or odd id, a removal, a variant with
no plain effect) it hands the message to the generic path, which carries it out and reports what
is malformed. The fast path *is* `ClientState.apply` (one call per update, not two).
`tests/corpus/state/` runs both (`ClientState(table, fast=False)` is the generic path alone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .session_state import (
    APPEND,
    META,
    MISSING_VALUE,
    REPLACE,
    UPSERT,
    Effect,
    Entries,
    SessionState,
    StateChange,
)

Apply = Callable[[Any], Any]
"""A whole state message → what it did (`client_state.Applied`)."""


class Plain(NamedTuple):
    """One session effect of a plain shape: its action, scope and target, the keys of the
    update it reads (None: none; an upsert without `id` merges into the target itself)."""

    action: str
    scope: str
    target: str
    id: str | None
    field: str | None
    value: str | None


def plain(effect: Effect) -> Plain | None:
    """`effect` as a `Plain` effect, or None where its shape is not plain."""

    def key(keys: tuple[str, ...] | None) -> str | None:
        return keys[0] if keys is not None and len(keys) == 1 else None

    if effect.effect.encoding or effect.effect.fallback or effect.id_under_value:
        return None
    action, scope, target = effect.action, effect.scope, effect.target
    id_key, field, value = key(effect.id), key(effect.field), key(effect.value)
    if action == APPEND and id_key and field and value:
        return Plain(APPEND, scope, target, id_key, field, value)
    if action == UPSERT and effect.value is None and effect.field is None:
        if effect.id is None or id_key:
            return Plain(UPSERT, scope, target, id_key, None, None)
        return None
    bare = effect.id is None and effect.field is None
    if action == REPLACE and bare and (effect.value is None or value):
        return Plain(REPLACE, scope, target, None, None, value)
    return None


def route_path(
    method: str,
    at: tuple[str, ...] | None,
    tag: str | None,
    session: tuple[tuple[str, ...], ...],
    plains: Mapping[str | None, Plain | None],
    sessions: Mapping[str, SessionState],
    applied: type[tuple[Any, ...]],
    otherwise: Apply,
) -> Apply | None:
    """The fast path of `method`'s route of params, in front of `otherwise` (which gets every
    message it does not carry out), or None where the route's shape is not the plain one: the
    annotated part one key under `params` and tagged, the session one key under `params`.
    `plains` holds each variant's `Plain` effect (None: none); `applied` is
    `client_state.Applied`. What an update did is a value, made once per (session, target,
    entry, action) and handed out again: a chunk's twentieth append reports what its first
    did, and making one costs more than carrying the update out."""
    if at is None or len(at) != 1 or tag is None or len(session) != 1:
        return None
    if len(session[0]) != 2 or session[0][0] != "params":
        return None
    at_key, session_key, make = at[0], session[0][1], tuple.__new__
    done: dict[tuple[str, str, str | None, str], Any] = {}

    def run(message: Any) -> Any:
        if message.get("method") != method or "result" in message:
            return otherwise(message)
        params = message.get("params")
        if type(params) is not dict:
            return otherwise(message)
        payload = params.get(at_key)
        session_id = params.get(session_key)
        if type(payload) is not dict or type(session_id) is not str:
            return otherwise(message)
        variant = payload.get(tag)
        effect = plains.get(variant) if type(variant) is str else None
        state = sessions.get(session_id)
        if effect is None or state is None:
            return otherwise(message)
        action, scope, target, id_key, field, value_key = effect
        targets = state._targets
        key = None
        if action == APPEND:
            key = payload.get(id_key)
            value = payload.get(value_key, MISSING_VALUE)
            entries = targets.get(target)
            if type(key) is not str or value is MISSING_VALUE or type(value) is str:
                return otherwise(message)
            if type(entries) is not Entries:
                return otherwise(message)
            entry = entries.get(key)
            if entry is None:  # a chunk before its entry's upsert makes the entry
                entries[key] = {field: [value], id_key: key}
            else:
                current = entry.get(field) if type(entry) is dict else None
                if current is None and type(entry) is dict:
                    current = ()
                elif type(current) is not list:
                    return otherwise(message)  # a string to extend, or malformed
                new = entry.copy()  # the state never changes what it shares
                new[field] = [*current, value]
                entries[key] = new
        elif action == UPSERT and id_key is not None:
            key = payload.get(id_key)
            entries = targets.get(target)
            if type(key) is not str or type(entries) is not Entries:
                return otherwise(message)
            entries[key] = _merged(state, entries.get(key), payload, tag)
        elif action == UPSERT:  # the target's one value
            current = targets.get(target)
            if type(current) is Entries:
                return otherwise(message)
            targets[target] = _merged(state, current, payload, tag)
        else:  # REPLACE
            if value_key is None:
                value = payload.copy()
                del value[tag]
            else:
                value = payload.get(value_key, MISSING_VALUE)
                if value is MISSING_VALUE:
                    return otherwise(message)  # an absent value removes the target
            targets[target] = value
        found = done.get((session_id, target, key, action))
        if found is None:
            change = make(StateChange, (scope, session_id, target, key, action))
            found = done[session_id, target, key, action] = make(
                applied, (session_id, (change,), False, None)
            )
        return found

    return run


def _merged(state: SessionState, entry: Any, payload: dict[str, Any], tag: str | None) -> Any:
    """`SessionState._upsert` of a plain upsert: "omitted fields leave the existing tool call
    value unchanged, `null` clears or unsets the value, and concrete values replace the
    previous value" (`ToolCallUpdate`)."""
    merged = entry.copy() if type(entry) is dict else {}
    if META not in payload and None not in payload.values():  # concrete values only
        merged.update(payload)
        if tag is not None:
            del merged[tag]  # never stored: an entry holds no union tag
        return merged
    for name, value in payload.items():
        if name == tag:
            continue
        if value is None:
            merged.pop(name, None)
        elif name == META and type(value) is dict:
            merged[name] = state._meta_of(merged.get(name), value)
        else:
            merged[name] = value
    return merged
