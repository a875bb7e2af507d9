# Copied by acp-codegen from templates/python/runtime/session_state.py. Do not edit here:
# edit the source, then run `make generate`.

"""The state a client keeps of one session (or of the agent): the four actions of the schema's
`x-state` annotations, carried out generically.

Layer: typed layer (pure data; `client_state.ClientState` routes each message here by the
edition's generated state table, `<edition>/state.py`). Nothing here knows a particular update:
an effect names its action, its target, the dotted paths of the message holding the target's id
and the value, and the target's field. The same reducer as the TypeScript and Go runtimes';
`tests/corpus/state/` is the corpus all three replay.

- `upsert` merges the message's fields into the entry: "omitted fields leave the existing tool
  call value unchanged, `null` clears or unsets the value, and concrete values replace the
  previous value" (`ToolCallUpdate`); "A concrete `_meta` object instead patches the stored
  metadata by top-level key" (v2; the edition's `_meta` policy, v1 merges).
- `append` extends the entry's field: one item onto a list ("Tool-call content chunks append one
  `ToolCallContent` item to the current content", `ToolCallContentChunk`), or a string onto a
  string; base64 strings (a terminal's `output.data`) join their bytes. An entry a chunk names
  before its upsert is made.
- `replace` sets the target, or its entry, or its field, to the value (the message itself without
  its union tag when no value is named); an absent value removes it ("Omitted or empty means
  no config options are advertised", `NewSessionResponse.configOptions`).
- `remove` deletes the entry (an unknown id changes nothing), or the target.

Collections (targets with an id) keep their entries in arrival order. The state shares the
values of the messages it applied and never changes them: every write copies along its path, but
for the list the state made last by an append, which grows in place while no reader was handed it
(a message's twentieth chunk costs what its first did). `get` and `entries` hand out the state's
own values: a later write never changes what they handed out.
"""

from __future__ import annotations

import base64
import binascii
import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from .session_info import merge_meta, patch_meta

UPSERT, APPEND, REPLACE, REMOVE = "upsert", "append", "replace", "remove"
ACTIONS = frozenset((UPSERT, APPEND, REPLACE, REMOVE))
META = "_meta"
MISSING, WRONG_TYPE = "missing", "type"
"""Why a message is malformed: a path it must hold is absent, or holds a value of a type the
action cannot use (an id that is not a string, a field that is neither a list nor a string)."""
TURN, BASE64 = "turn", "base64"


@dataclass(frozen=True, slots=True)
class StateEffect:
    """One effect of an annotation (`x-state`), as the generated table gives it."""

    scope: str
    action: str
    target: str
    id: str | None = None
    field: str | None = None
    value: str | None = None
    fallback: str | None = None
    """`turn`: without the `id` path, the entry of the session's current prompt turn (v1)."""
    encoding: str | None = None
    """`base64`: the value is encoded bytes ("Independently base64-encoded terminal output
    bytes", `TerminalOutputChunk.data`): an append joins the bytes, not the text."""


class StateChange(NamedTuple):
    """What one applied effect changed: the target, the entry's id (None: the target itself)."""

    scope: str
    session: str | None
    target: str
    id: str | None
    action: str

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "session": self.session,
            "target": self.target,
            "id": self.id,
            "action": self.action,
        }


def _change(fields: tuple[str, str | None, str, str | None, str]) -> StateChange:
    """A `StateChange` made at C speed (`tuple.__new__`: a named tuple's own `__new__` is
    Python code, and one change is made per applied update)."""
    return tuple.__new__(StateChange, fields)


class Effect:
    """A `StateEffect` made ready to carry out: its paths split once (the hot path reads them
    per update)."""

    __slots__ = ("action", "effect", "field", "id", "id_under_value", "scope", "target", "value")

    def __init__(self, effect: StateEffect) -> None:
        self.effect = effect
        self.scope, self.action, self.target = effect.scope, effect.action, effect.target
        self.id = None if effect.id is None else tuple(effect.id.split("."))
        self.field = None if effect.field is None else tuple(effect.field.split("."))
        self.value = None if effect.value is None else tuple(effect.value.split("."))
        # The effect takes its id from inside its value (`subject.toolCall.toolCallId`).
        self.id_under_value = (
            self.id is not None
            and self.value is not None
            and self.id[: len(self.value)] == self.value
            and len(self.id) > len(self.value)
        )


class Malformed(Exception):
    """A message lacks a path an effect needs (`pointer`, into the state message)."""

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(pointer, reason)
        self.pointer = pointer
        self.reason = reason


class Entries(dict[str, Any]):
    """A collection target: entry id → entry, in arrival order."""


MISSING_VALUE: Any = object()
UNGROWN: Any = object()
"""`SessionState._grown` where no list may grow in place (no value of a message or state is it)."""


def read(value: Any, keys: tuple[str, ...]) -> Any:
    """The value at the path of `keys` (a dotted path, split) of `value` (`MISSING_VALUE` where
    absent)."""
    for key in keys:
        if type(value) is not dict:
            return MISSING_VALUE
        value = value.get(key, MISSING_VALUE)
    return value


def written(value: Any, keys: tuple[str, ...], new: Any) -> dict[str, Any]:
    """A copy of `value` (an object, or `{}`) with `new` at the path of `keys` (`MISSING_VALUE`:
    removed); the objects along the path are copied, nothing is changed in place."""
    out = dict(value) if type(value) is dict else {}
    key = keys[0]
    if len(keys) > 1:
        out[key] = written(out.get(key), keys[1:], new)
    elif new is MISSING_VALUE:
        out.pop(key, None)
    else:
        out[key] = new
    return out


def pointer(base: str, path: str | tuple[str, ...]) -> str:
    """The JSON pointer of the dotted `path` (or its keys) under `base`."""
    keys = path.split(".") if isinstance(path, str) else path
    return base + "".join("/" + k.replace("~", "~0").replace("/", "~1") for k in keys)


class Step(NamedTuple):
    """One effect made ready to commit: its key (None: the target itself) and its value."""

    effect: Effect
    key: str | None
    value: Any


class SessionState:
    """The state of one scope: a session's (or the agent's, for `agent`-scoped effects).

    `get(target)` reads a target (a collection as a dict of entries), `entries(target)` a
    collection's entries in arrival order, `log` the messages kept without being applied (an
    update no annotation covers, a variant this schema does not know, a malformed update),
    `problems` one per kind of malformed message, `snapshot()` all of it as plain JSON."""

    def __init__(self, meta: str = "replace") -> None:
        self._targets: dict[str, Any] = {}
        self._meta = meta
        self._reported: set[str] = set()
        self.log: list[Any] = []
        self.problems: list[dict[str, str]] = []
        self.turn = 0
        """The prompt turns started so far (v1's chunks without `messageId` join its message)."""
        self._grown: Any = UNGROWN
        """The list an append may grow in place: the last one an append made, while neither
        `get` nor `entries` has handed it out."""
        self._grown_by: Any = None
        """What the fast path's append that made `_grown` reported (`state_fast`; None: the
        generic path made it): an append growing it reports the same."""
        self._grown_at: Any = None
        self._grown_id: str | None = None
        """The fast path's append (`state_fast`) whose entry `_grown_id` holds `_grown` (None:
        none): its next chunk for that entry grows the list without looking it up. Every other
        write sets it to None."""
        self._shared: set[str] = set()
        """The collections whose entries `get` handed out as a live mapping: an entry read from
        it later could hold any of their lists, so an append to them always copies."""

    def get(self, target: str) -> Any:
        """The target's value, a collection's `{id: entry}` (live: it gets the entries set
        later), or None where never set. A later write never changes the value or an entry."""
        found = self._targets.get(target)
        self._grown, self._grown_at = UNGROWN, None
        if isinstance(found, Entries):
            self._shared.add(target)
        return found

    def entries(self, target: str) -> list[Any]:
        """A collection's entries in arrival order (empty where it has none); a later write never
        changes them."""
        found = self._targets.get(target)
        self._grown, self._grown_at = UNGROWN, None
        return list(found.values()) if isinstance(found, Entries) else []

    def snapshot(self) -> dict[str, Any]:
        """The state as plain JSON: `targets` (a collection as `[{"id", "value"}]` in arrival
        order), `log` and `problems`; a copy the caller may keep or change."""
        targets = {
            name: (
                [{"id": key, "value": entry} for key, entry in value.items()]
                if isinstance(value, Entries)
                else value
            )
            for name, value in self._targets.items()
        }
        return copy.deepcopy({"targets": targets, "log": self.log, "problems": self.problems})

    def report(self, kind: str, where: str, reason: str) -> bool:
        """Record a malformed message's problem, once per kind; whether it is new."""
        if kind in self._reported:
            return False
        self._reported.add(kind)
        self.problems.append({"kind": kind, "pointer": where, "reason": reason})
        return True

    # -- the four actions: `step` checks a message, `commit` applies it ------------------------

    def step(self, effect: Effect, payload: Any, base: str, tag: str | None) -> Step | None:
        """`effect` read from `payload` (at `base` in the state message); None when it does not
        apply (the object holding its value lacks it: a permission request whose subject is
        not a tool call; a value absent at the top, `plan_update`'s `plan`, is malformed),
        `Malformed` when a path it needs is absent or of the wrong type. Changes
        nothing."""
        value_keys = effect.value
        if effect.id_under_value and value_keys is not None:
            found = read(payload, value_keys)
            if found is MISSING_VALUE or found is None:
                holder = read(payload, value_keys[:-1]) if len(value_keys) > 1 else payload
                if len(value_keys) > 1 and (holder is MISSING_VALUE or type(holder) is dict):
                    # a variant without it (a permission request not about a tool call), or an
                    # optional holder left out (v2's `subject`): the effect does not apply
                    return None
                reason = MISSING if found is MISSING_VALUE else WRONG_TYPE
                raise Malformed(pointer(base, value_keys), reason)  # a required value absent
        key: str | None = None
        if effect.id is not None:
            found = read(payload, effect.id)
            if type(found) is not str:
                if found in (MISSING_VALUE, None) and effect.effect.fallback == TURN:
                    found = f"turn:{self.turn}"
                elif found is MISSING_VALUE:
                    raise Malformed(pointer(base, effect.id), MISSING)
                else:
                    raise Malformed(pointer(base, effect.id), WRONG_TYPE)
            key = found
        if value_keys is not None:
            value = read(payload, value_keys)
        elif tag is not None and type(payload) is dict:
            value = payload.copy()
            value.pop(tag, None)
        else:
            value = payload
        action = effect.action
        if action == APPEND:
            if value is MISSING_VALUE:
                raise Malformed(pointer(base, value_keys or ()), MISSING)
            current = read(self._entry(effect.target, key), effect.field or ())
            if not _appendable(current, value, effect.effect.encoding):
                raise Malformed(pointer(base, value_keys or ()), WRONG_TYPE)
        elif action == UPSERT and type(value) is not dict:
            raise Malformed(pointer(base, value_keys) if value_keys else base, WRONG_TYPE)
        return Step(effect, key, value)

    def commit(self, step: Step, session: str | None) -> StateChange | None:
        """Carry out a checked step; what changed (None: nothing)."""
        effect, key, value = step
        action, target = effect.action, effect.target
        self._grown_at = None
        if action == REMOVE:
            if not self._remove(target, key):
                return None
            return _change((effect.scope, session, target, key, action))
        entry = self._entry(target, key)
        if action == APPEND:
            field = effect.field or ()
            current = read(entry, field)
            if current is self._grown:
                current.append(value)  # the state's own list, which no reader holds
                return _change((effect.scope, session, target, key, action))
            joined = _appended(current, value, effect.effect.encoding)
            if type(joined) is list and target not in self._shared:
                self._grown, self._grown_by = joined, None
            if type(entry) is dict and len(field) == 1:
                new = entry.copy()
                new[field[0]] = joined
            else:
                new = written(entry, field, joined)
                if entry is MISSING_VALUE and key is not None and effect.id is not None:
                    new = written(new, effect.id, key)  # a chunk before its entry's upsert
        elif action == UPSERT:
            new = self._upsert(entry, effect.field, value)
        elif effect.field is not None:
            new = written(entry, effect.field, value)
        else:
            new = value
        self._store(target, key, new)
        return _change((effect.scope, session, target, key, action))

    def _entry(self, target: str, key: str | None) -> Any:
        found = self._targets.get(target, MISSING_VALUE)
        if key is None:
            return MISSING_VALUE if isinstance(found, Entries) else found
        return found.get(key, MISSING_VALUE) if isinstance(found, Entries) else MISSING_VALUE

    def _store(self, target: str, key: str | None, value: Any) -> None:
        if key is None:
            if value is MISSING_VALUE:
                self._targets.pop(target, None)
            else:
                self._targets[target] = value
            return
        entries = self._targets.get(target)
        if not isinstance(entries, Entries):
            entries = self._targets[target] = Entries()
        if value is MISSING_VALUE:
            entries.pop(key, None)
        else:
            entries[key] = value

    def _remove(self, target: str, key: str | None) -> bool:
        if key is None:
            return self._targets.pop(target, MISSING_VALUE) is not MISSING_VALUE
        entries = self._targets.get(target)
        return isinstance(entries, Entries) and entries.pop(key, MISSING_VALUE) is not MISSING_VALUE

    def _upsert(self, entry: Any, field: tuple[str, ...] | None, fields: dict[str, Any]) -> Any:
        inner = entry if field is None else read(entry, field)
        merged = dict(inner) if type(inner) is dict else {}
        for name, value in fields.items():
            if value is None:
                merged.pop(name, None)  # "`null` clears or unsets the value"
            elif name == META and type(value) is dict:
                merged[name] = self._meta_of(merged.get(name), value)
            else:
                merged[name] = value
        return merged if field is None else written(entry, field, merged)

    def _meta_of(self, stored: Any, given: Mapping[str, Any]) -> Any:
        if self._meta == "replace":
            return given
        if type(stored) is not dict:  # nothing stored yet: "a key set to `null` is removed"
            stored = {}
        return merge_meta(stored, given) if self._meta == "merge" else patch_meta(stored, given)


def _appendable(current: Any, value: Any, encoding: str | None) -> bool:
    if encoding == BASE64:
        current = "" if current is MISSING_VALUE or current is None else current
        if not (isinstance(value, str) and isinstance(current, str)):
            return False
        return _decoded(value) is not None and _decoded(current) is not None
    if current is MISSING_VALUE or current is None:
        return True
    return isinstance(current, list) or (isinstance(current, str) and isinstance(value, str))


def _appended(current: Any, value: Any, encoding: str | None) -> Any:
    if encoding == BASE64:
        joined = (_decoded(current) if isinstance(current, str) else b"") or b""
        return base64.b64encode(joined + (_decoded(value) or b"")).decode("ascii")
    if isinstance(value, str) and (isinstance(current, str) or current in (MISSING_VALUE, None)):
        return (current if isinstance(current, str) else "") + value
    return [*(current if isinstance(current, list) else ()), value]


def _decoded(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
