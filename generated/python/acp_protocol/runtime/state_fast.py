# Copied by acp-codegen from templates/python/runtime/state_fast.py. Do not edit here:
# edit the source, then run `make generate`.

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
is malformed. The fast path *is* `ClientState.apply` (one call per update, not two), and, for a
message's params alone, `ClientState.applier(method)`, which the client's router feeds.
`tests/corpus/state/` runs both (`ClientState(table, fast=False)` is the generic path alone).
"""

from __future__ import annotations

from collections import defaultdict
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


ApplyParams = Callable[[Any], Any]
"""The params of a message of the route's method → what it did (`client_state.Applied`)."""

Paths = tuple[Apply, ApplyParams]
"""A route's fast paths: for a whole state message, and for a message's params alone."""

GENERIC: Any = object()
"""What a `Handler` returns for an update it does not carry out: the generic path does."""


def route_path(
    method: str,
    at: tuple[str, ...] | None,
    tag: str | None,
    session: tuple[tuple[str, ...], ...],
    plains: Mapping[str | None, Plain | None],
    sessions: Mapping[str, SessionState],
    applied: type[tuple[Any, ...]],
    otherwise: Apply,
) -> Paths | None:
    """The fast paths of `method`'s route of params, in front of `otherwise` (which gets every
    message they do not carry out), or None where the route's shape is not the plain one: the
    annotated part one key under `params` and tagged, the session one key under `params`.
    `plains` holds each variant's `Plain` effect (None: none); each one becomes a `Handler`
    (`handler`), looked up by the update's tag; `applied` is `client_state.Applied`.

    Two paths: one for a whole message (`ClientState.apply`), one for the params of a message
    of `method` (`ClientState.applier`: the client's router has the params, and building a
    message around them per update costs a sixth of carrying the update out)."""
    if at is None or len(at) != 1 or tag is None or len(session) != 1:
        return None
    if len(session[0]) != 2 or session[0][0] != "params":
        return None
    at_key, session_key = at[0], session[0][1]
    handlers = {
        variant: handler(effect, tag, applied)
        for variant, effect in plains.items()
        if variant is not None and effect is not None
    }

    def apply_params(params: Any, message: Any = None) -> Any:
        try:  # a key absent, or a value that is no object, goes the generic way
            payload = params[at_key]
            carry_out = handlers[payload[tag]]
            session_id = params[session_key]
            state = sessions[session_id]  # (a session is keyed by a string id: it is one)
        except (KeyError, TypeError):
            pass
        else:
            if type(payload) is dict:
                done = carry_out(session_id, state, payload)
                if done is not GENERIC:
                    return done
        return otherwise({"method": method, "params": params} if message is None else message)

    def run(message: Any) -> Any:
        try:
            params = message["params"]
            plain_message = message["method"] == method and "result" not in message
        except (KeyError, TypeError):
            return otherwise(message)
        return apply_params(params, message) if plain_message else otherwise(message)

    return run, apply_params


Handler = Callable[[str, SessionState, dict[str, Any]], Any]
"""One variant's plain effect carried out on (session id, its state, the update), the session
made already: what it did, or `GENERIC` where the generic path must carry it out (it has changed
nothing then)."""


def handler(effect: Plain, tag: str, applied: type[tuple[Any, ...]]) -> Handler:
    """The `Handler` of `effect`. What an update did is a value, made once per (session, entry)
    and handed out again: a chunk's twentieth append reports what its first did, and making one
    costs more than carrying the update out."""
    action, scope, target, id_key, field, value_key = effect
    make = tuple.__new__
    done: defaultdict[str, dict[str | None, Any]] = defaultdict(dict)

    def _done(session_id: str, key: str | None) -> Any:
        by_key = done[session_id]
        found = by_key.get(key)
        if found is None:  # the first update of this entry (no exception: it is often)
            change = make(StateChange, (scope, session_id, target, key, action))
            found = by_key[key] = make(applied, (session_id, (change,), False, None))
        return found

    if action == APPEND and id_key is not None and field is not None and value_key is not None:

        def append(session_id: str, state: SessionState, payload: Any) -> Any:
            try:
                key = payload[id_key]
                value = payload[value_key]
            except KeyError:  # a missing id or value is malformed
                return GENERIC
            if state._grown_at is effect and state._grown_id == key:  # this entry's last list
                state._grown.append(value)  # the state's own list, which no reader holds
                return state._grown_by
            entries = state._targets.get(target)
            if type(key) is not str or type(value) is str or type(entries) is not Entries:
                return GENERIC  # an odd id, or a string to extend
            entry = entries.get(key)
            if entry is None:  # a chunk before its entry's upsert makes the entry
                grown = [value]
                entries[key] = {field: grown, id_key: key}
            else:
                current = entry.get(field) if type(entry) is dict else MISSING_VALUE
                if current is state._grown:
                    current.append(value)  # the state's own list, which no reader holds
                    found = state._grown_by or _done(session_id, key)
                    state._grown_at, state._grown_id, state._grown_by = effect, key, found
                    return found
                if current is not None and type(current) is not list:
                    return GENERIC  # an entry or field of another shape
                new = entry.copy()  # the state never changes what it shares
                grown = new[field] = [*(current or ()), value]
                entries[key] = new
            found = _done(session_id, key)
            if target in state._shared:
                state._grown_at = None
            else:
                state._grown, state._grown_by = grown, found
                state._grown_at, state._grown_id = effect, key
            return found

        return append

    if action == UPSERT and id_key is not None:

        def upsert(session_id: str, state: SessionState, payload: Any) -> Any:
            key = payload.get(id_key)
            entries = state._targets.get(target)
            if type(key) is not str or type(entries) is not Entries:
                return GENERIC
            entry = entries.get(key)
            state._grown_at = None  # (an append grows a list in place only after an append)
            if META in payload or None in payload.values():
                entries[key] = _merged(state, entry, payload, tag)
            else:  # concrete values only, `_merged`'s first case inline (the usual update)
                merged = entry.copy() if type(entry) is dict else {}
                merged.update(payload)
                del merged[tag]  # never stored: an entry holds no union tag
                entries[key] = merged
            found = done[session_id].get(key)
            return found if found is not None else _done(session_id, key)

        return upsert

    if action == UPSERT:

        def upsert_one(session_id: str, state: SessionState, payload: Any) -> Any:
            """An upsert without `id`: it merges into the target's one value."""
            targets = state._targets
            current = targets.get(target)
            if type(current) is Entries:
                return GENERIC
            state._grown_at = None
            targets[target] = _merged(state, current, payload, tag)
            return _done(session_id, None)

        return upsert_one

    def replace(session_id: str, state: SessionState, payload: Any) -> Any:
        if value_key is None:
            value = payload.copy()
            del value[tag]
        else:
            value = payload.get(value_key, MISSING_VALUE)
            if value is MISSING_VALUE:
                return GENERIC  # an absent value removes the target
        state._grown_at = None
        state._targets[target] = value
        return _done(session_id, None)

    return replace


def _merged(state: SessionState, entry: Any, payload: dict[str, Any], tag: str | None) -> Any:
    """`SessionState._upsert` of a plain upsert: "omitted fields leave the existing tool call
    value unchanged, `null` clears or unsets the value, and concrete values replace the
    previous value" (`ToolCallUpdate`)."""
    if META not in payload and None not in payload.values():  # concrete values only
        if type(entry) is dict:
            merged = entry.copy()
            merged.update(payload)
        else:
            merged = payload.copy()
        if tag is not None:
            del merged[tag]  # never stored: an entry holds no union tag
        return merged
    merged = entry.copy() if type(entry) is dict else {}
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
