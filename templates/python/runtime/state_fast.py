"""Fast paths for the plain shapes of the state actions: the same result as `SessionState.step`
then `commit`, in fewer steps, for the updates a session sends most (a chunk appended to a
message that exists, a tool call upsert, a run state replaced).

Layer: typed layer (pure data; `client_state.ClientState` tries a fast path first). A fast path
is made per table entry from the shape of its one effect, never from the update it is about:
single-key paths, no field for an upsert or replace, a list to append to. It answers `SLOW`
whenever anything is not plain (an entry not made yet, a string or base64 append, a missing or
odd id, a removal): the generic path then carries the message out, and reports what is
malformed. `tests/corpus/state/` runs both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

SLOW: Any = object()
"""A fast path's answer when the generic path must carry the message out."""

FastPath = Callable[[SessionState, Any, "str | None"], Any]
"""(state, the annotated part of the message, session id) → a `StateChange`, or `SLOW`."""


def fast_path(effect: Effect, tag: str | None) -> FastPath | None:
    """The fast path of `effect`, or None where its shape has none."""

    def one(keys: tuple[str, ...] | None) -> bool:
        return keys is not None and len(keys) == 1

    if effect.effect.encoding or effect.effect.fallback or effect.id_under_value:
        return None
    if effect.action == APPEND and one(effect.id) and one(effect.field) and one(effect.value):
        assert effect.id and effect.field and effect.value
        return _append(effect, effect.id[0], effect.field[0], effect.value[0])
    if effect.action == UPSERT and effect.value is None and effect.field is None:
        if effect.id is None:
            return _upsert_one(effect, tag)
        return _upsert(effect, effect.id[0], tag) if one(effect.id) else None
    plain = effect.id is None and effect.field is None
    if effect.action == REPLACE and plain and (effect.value is None or one(effect.value)):
        return _replace(effect, None if effect.value is None else effect.value[0], tag)
    return None


def _append(effect: Effect, id_key: str, field: str, value_key: str) -> FastPath:
    target, scope, action = effect.target, effect.scope, effect.action

    def run(state: SessionState, payload: Any, session: str | None) -> Any:
        if type(payload) is not dict:
            return SLOW
        key = payload.get(id_key)
        value = payload.get(value_key, MISSING_VALUE)
        entries = state._targets.get(target)
        if type(key) is not str or value is MISSING_VALUE or type(value) is str:
            return SLOW
        entry = entries.get(key) if type(entries) is Entries else None
        if type(entry) is not dict:
            return SLOW
        current = entry.get(field)
        if type(current) is not list:
            return SLOW
        new = entry.copy()
        new[field] = [*current, value]
        entries[key] = new  # type: ignore[index]
        return tuple.__new__(StateChange, (scope, session, target, key, action))

    return run


def _merged(state: SessionState, entry: Any, payload: dict[str, Any], tag: str | None) -> Any:
    merged = entry.copy() if type(entry) is dict else {}
    for name, value in payload.items():
        if name == tag:
            continue
        if value is None:
            merged.pop(name, None)  # "`null` clears or unsets the value"
        elif name == META and type(value) is dict:
            merged[name] = state._meta_of(merged.get(name), value)
        else:
            merged[name] = value
    return merged


def _upsert(effect: Effect, id_key: str, tag: str | None) -> FastPath:
    target, scope, action = effect.target, effect.scope, effect.action

    def run(state: SessionState, payload: Any, session: str | None) -> Any:
        if type(payload) is not dict:
            return SLOW
        key = payload.get(id_key)
        entries = state._targets.get(target)
        if type(key) is not str or type(entries) is not Entries:
            return SLOW
        entries[key] = _merged(state, entries.get(key), payload, tag)
        return tuple.__new__(StateChange, (scope, session, target, key, action))

    return run


def _upsert_one(effect: Effect, tag: str | None) -> FastPath:
    target, scope, action = effect.target, effect.scope, effect.action

    def run(state: SessionState, payload: Any, session: str | None) -> Any:
        current = state._targets.get(target)
        if type(payload) is not dict or type(current) is Entries:
            return SLOW
        state._targets[target] = _merged(state, current, payload, tag)
        return tuple.__new__(StateChange, (scope, session, target, None, action))

    return run


def _replace(effect: Effect, value_key: str | None, tag: str | None) -> FastPath:
    target, scope, action = effect.target, effect.scope, effect.action

    def run(state: SessionState, payload: Any, session: str | None) -> Any:
        if type(payload) is not dict:
            return SLOW
        if value_key is not None:
            value = payload.get(value_key, MISSING_VALUE)
            if value is MISSING_VALUE:
                return SLOW
        else:
            value = payload.copy()
            if tag is not None:
                value.pop(tag, None)
        state._targets[target] = value
        return tuple.__new__(StateChange, (scope, session, target, None, action))

    return run
