"""An edition's client-state table as the generated code gives it (`<edition>/state.py`), and
the same table compiled once into the routes `ClientState` carries out: by method and the part of
the message (`params` or `result`), then by variant.

Layer: typed layer (pure data; `client_state.ClientState` reads the routes, the generated
`<edition>/state.py` builds the table). The Go runtime's `client_state_table.go` is the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .session_state import ACTIONS, Effect, StateEffect, pointer
from .state_fast import Plain, plain

PARAMS, RESULT = "params", "result"
SCOPES = ("session", "agent")
TURN_SESSION = ("params", "sessionId")


@dataclass(frozen=True, slots=True)
class StateEntry:
    """One annotation where a client meets it (see `acp_codegen/targets/state_table.py`)."""

    method: str
    part: str
    at: str | None
    tag: str | None
    variant: str | None
    session: tuple[str, ...]
    effects: tuple[StateEffect, ...]
    pointer: str
    rule: str | None = None


class Compiled(NamedTuple):
    """A table entry made ready to carry out: its effects compiled, whether this runtime knows
    them all, the kind its problems are reported under."""

    entry: StateEntry
    effects: tuple[Effect, ...]
    known: bool
    kind: str
    plain: Plain | None
    """Its one session effect, where the shape is plain (`state_fast`)."""


@dataclass(frozen=True, slots=True)
class Route:
    """The entries of one (method, part), by variant (None: the part itself)."""

    at: tuple[str, ...] | None
    tag: str | None
    session: tuple[tuple[str, ...], ...]
    base: str
    """The JSON pointer of the annotated part (`/params/update`)."""
    entries: dict[str | None, Compiled] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StateTable:
    """One edition's client-state table (generated)."""

    entries: tuple[StateEntry, ...]
    meta: str = "replace"
    """The `_meta` policy of every upsert: `patch` (v2), `merge` (v1) or `replace`."""
    turn: str | None = None
    """The request that starts a prompt turn (`session/prompt`) where an effect is keyed by it."""

    def routes(self) -> dict[tuple[str, str], Route]:
        routes: dict[tuple[str, str], Route] = {}
        for entry in self.entries:
            route = routes.get((entry.method, entry.part))
            if route is None:
                at = None if entry.at is None else tuple(entry.at.split("."))
                session = tuple(tuple(path.split(".")) for path in entry.session)
                base = pointer("/" + entry.part, at) if at else "/" + entry.part
                route = routes[entry.method, entry.part] = Route(at, entry.tag, session, base)
            known = all(e.action in ACTIONS and e.scope in SCOPES for e in entry.effects)
            kind = entry.method if entry.variant is None else f"{entry.method} {entry.variant}"
            effects = tuple(Effect(e) for e in entry.effects)
            one = effects[0] if len(effects) == 1 and effects[0].scope == "session" else None
            simple = None if one is None or not known else plain(one)
            route.entries[entry.variant] = Compiled(entry, effects, known, kind, simple)
        return routes

    def methods(self) -> frozenset[str]:
        """The methods whose messages change state (the turn's request among them)."""
        found = {e.method for e in self.entries}
        if self.turn is not None:
            found.add(self.turn)
        return frozenset(found)
