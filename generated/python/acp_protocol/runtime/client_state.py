# Copied by acp-codegen from templates/python/runtime/client_state.py. Do not edit here:
# edit the source, then run `make generate`.

"""The state a client keeps of an agent connection: each session's `SessionState` and the
agent's, fed with state messages and routed by the edition's generated state table.

Layer: typed layer (pure data; the client's router feeds it, `session_view` and the client
connection expose it). A state message is one shape for every message that changes state:
`{"method": …, "params": …}` for a request or notification, `{"method": …, "params": <the
request's>, "result": …}` for a response. The table (`<edition>/state.py`, rendered from the
schema's `x-state`/`x-scope` annotations, or v1's rule table) says where each annotated message
is and what it does (`client_state_table`: the table and its routes); nothing here knows a
particular update.

Unknown stays safe: an update of a method the table covers whose variant no annotation names
(or an effect of an action this runtime does not know) is kept in the state's `log` and changes
nothing else; a malformed one (a path it needs is absent) is logged too and reported once per
kind in `problems` with the JSON pointer of what is missing; `apply` never raises on a message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, NamedTuple

from .client_state_table import PARAMS, RESULT, Compiled, Route, StateEntry, StateTable
from .request_state import DEFAULT_OPTIONS, RequestOptions
from .session_state import (
    MISSING,
    MISSING_VALUE,
    WRONG_TYPE,
    Malformed,
    SessionState,
    StateChange,
    Step,
    pointer,
    read,
)
from .state_fast import route_path

__all__ = [
    "NOTHING",
    "Applied",
    "ClientState",
    "Listener",
    "StateEntry",
    "StateSender",
    "StateTable",
]
"""`StateEntry` and `StateTable` live in `client_state_table` and are imported from here too."""

log = logging.getLogger(__name__)

TURN_SESSION = ("params", "sessionId")


class Applied(NamedTuple):
    """What one message did: its session (None: none named), the changes, whether it was
    kept in a log instead (unknown or malformed), and the problem it raised (a new kind)."""

    session: str | None = None
    changes: tuple[StateChange, ...] = ()
    logged: bool = False
    problem: Mapping[str, str] | None = None


NOTHING = Applied()
Listener = Callable[[Applied], None]


class ClientState:
    """Every session's state and the agent's, from the messages `apply` is given, in order."""

    def __init__(self, table: StateTable, *, fast: bool = True) -> None:
        """`fast=False`: every message goes the generic way (`state_fast` is a shortcut to the
        same result; the corpus test runs both)."""
        self.table = table
        self._routes = table.routes()
        self._turn_method = table.turn
        self.agent = SessionState(table.meta)
        """Agent-scoped state (`authStatus`), and the log of messages naming no session."""
        self.sessions: dict[str, SessionState] = {}
        self._unseen: dict[str, SessionState] = {}  # read by `session`, no message touched yet
        self._listeners: list[tuple[Listener, str | None]] = []
        self.apply: Callable[[Mapping[str, Any]], Applied] = self._apply
        """Carry out what a state message does; never raises on its content. The fast path of
        each plain route of params (`state_fast.route_path`) goes in front of the generic
        one (`_apply`)."""
        self._params_paths: dict[str, Callable[[Any], Applied]] = {}
        for (method, part), route in self._routes.items() if fast else ():
            plains = {variant: c.plain for variant, c in route.entries.items()}
            found = route_path(
                method,
                route.at,
                route.tag,
                route.session,
                plains,
                self.sessions,
                Applied,
                self.apply,
            )
            if part == PARAMS and found is not None:
                self.apply, self._params_paths[method] = found

    def subscribe(self, listener: Listener, session: str | None = None) -> Callable[[], None]:
        """Call `listener` with what each applied message did (of `session` only, when named),
        after the state changed; returns the function that unsubscribes it."""
        item = (listener, session)
        self._listeners.append(item)
        return lambda: self._listeners.remove(item) if item in self._listeners else None

    def feed(self, message: Mapping[str, Any]) -> Applied:
        """`apply`, then tell the listeners; a listener that raises is logged, never raised."""
        applied = self.apply(message)
        if applied is NOTHING or not (applied.changes or applied.logged):
            return applied
        self._tell(applied)
        return applied

    def _tell(self, applied: Applied) -> None:
        for listener, session in tuple(self._listeners):
            if session is None or session == applied.session:
                try:
                    listener(applied)
                except Exception:
                    log.exception("a client-state listener raised")

    def applier(self, method: str) -> Callable[[Any], Applied]:
        """`apply` for the params of a request or notification of `method`, made once: what
        `apply({"method": method, "params": params})` does, without the message around them."""
        found = self._params_paths.get(method)
        if found is not None:
            return found
        return lambda params: self.apply({"method": method, "params": params})

    def feeder(self, method: str) -> Callable[[Any], Applied]:
        """`feed` for the params of a request or notification of `method`, made once (the
        client's router calls it per message it receives)."""
        apply, listeners = self.applier(method), self._listeners

        def feed(params: Any) -> Applied:
            applied = apply(params)
            if listeners and applied is not NOTHING and (applied.changes or applied.logged):
                self._tell(applied)
            return applied

        return feed

    def session(self, session_id: str) -> SessionState:
        """The state of `session_id`; reading it makes nothing appear: a session no message
        touched yet reads empty and is in neither `sessions` nor the snapshot until one does."""
        state = self.sessions.get(session_id) or self._unseen.get(session_id)
        if state is None:
            state = self._unseen[session_id] = SessionState(self.table.meta)
        return state

    def _candidate(self, session_id: str) -> SessionState:
        """The state a message about `session_id` would change, not made to appear yet."""
        found = self.sessions.get(session_id) or self._unseen.get(session_id)
        return found if found is not None else SessionState(self.table.meta)

    def _touched(self, session_id: str, state: SessionState) -> SessionState:
        """`state` (a `_candidate`) made to appear: a message changed, logged or turned it."""
        if session_id not in self.sessions:
            self.sessions[session_id] = state
            self._unseen.pop(session_id, None)
        return state

    def snapshot(self) -> dict[str, Any]:
        """`{"agent": …, "sessions": {id: …}}`, each a `SessionState.snapshot()`."""
        return {
            "agent": self.agent.snapshot(),
            "sessions": {sid: state.snapshot() for sid, state in self.sessions.items()},
        }

    def _apply(self, message: Mapping[str, Any]) -> Applied:
        """`apply` on the generic path: the table's route of the message, its variant, its
        session, each effect checked (`SessionState.step`), then carried out (`commit`)."""
        if type(message) is not dict and not isinstance(message, Mapping):  # a list, None, …
            return NOTHING
        method = message.get("method")
        part = RESULT if RESULT in message else PARAMS
        route = self._routes.get((method, part)) if type(method) is str else None
        if route is None:
            return self._turn(message) if method == self._turn_method else NOTHING
        payload = message.get(part)
        for key in route.at or ():
            payload = payload.get(key) if type(payload) is dict else None
        variant = payload.get(route.tag) if route.tag and type(payload) is dict else None
        session_id = None
        for path in route.session:
            found = read(message, path)
            if type(found) is str:
                session_id = found
                break
        compiled = route.entries.get(variant) if variant is None or type(variant) is str else None
        if compiled is None or not compiled.known:
            self._holder(session_id).log.append(message)
            return Applied(session_id, (), True)
        return self._carry_out(message, route, compiled, session_id, payload)

    def _turn(self, message: Mapping[str, Any]) -> Applied:
        """The request that starts a prompt turn (v1's `session/prompt`): the session's turn
        advances, nothing else changes."""
        session_id = _string(read(message, TURN_SESSION))
        if session_id is not None and RESULT not in message:
            self._touched(session_id, self._candidate(session_id)).turn += 1
        return Applied(session_id)

    def _carry_out(
        self,
        message: Mapping[str, Any],
        route: Route,
        compiled: Compiled,
        session_id: str | None,
        payload: Any,
    ) -> Applied:
        effects = compiled.effects
        if len(effects) == 1 and effects[0].scope == "session" and session_id is not None:
            holder = self.sessions.get(session_id)
            fresh = holder is None  # made to appear only once the message touches it
            if holder is None:
                holder = self._candidate(session_id)
            try:  # one session effect
                step = holder.step(effects[0], payload, route.base, route.tag)
            except Malformed as malformed:
                self._touched(session_id, holder)
                return self._malformed(message, compiled.kind, session_id, holder, malformed)
            if step is None:  # it does not apply: the session is not touched
                return Applied(session_id)
            if fresh:
                self._touched(session_id, holder)
            change = holder.commit(step, session_id)
            return tuple.__new__(
                Applied, (session_id, () if change is None else (change,), False, None)
            )
        return self._each(message, route, compiled, session_id, payload)

    def _each(
        self,
        message: Mapping[str, Any],
        route: Route,
        compiled: Compiled,
        session_id: str | None,
        payload: Any,
    ) -> Applied:
        steps: list[tuple[SessionState, Step]] = []
        holder: SessionState | None = None
        tag = route.tag
        own = SessionState(self.table.meta) if session_id is None else self._candidate(session_id)
        try:
            for effect in compiled.effects:
                if effect.scope == "agent":
                    holder = self.agent
                elif session_id is None:
                    raise _no_session(message, route)
                else:
                    holder = own
                step = holder.step(effect, payload, route.base, tag)
                if step is not None:
                    steps.append((holder, step))
        except Malformed as malformed:
            if holder is own and session_id is not None:
                self._touched(session_id, own)
            return self._malformed(message, compiled.kind, session_id, holder, malformed)
        if session_id is not None and any(state is own for state, _ in steps):
            self._touched(session_id, own)
        changes = []
        for state, step in steps:
            change = state.commit(step, session_id)
            if change is not None:
                changes.append(change)
        return Applied(session_id, tuple(changes))

    def _malformed(
        self,
        message: Mapping[str, Any],
        kind: str,
        session_id: str | None,
        holder: SessionState | None,
        malformed: Malformed,
    ) -> Applied:
        holder = holder or self._holder(session_id)
        holder.log.append(message)
        problem = {"kind": kind, "pointer": malformed.pointer, "reason": malformed.reason}
        if holder.report(kind, malformed.pointer, malformed.reason):
            log.warning("malformed %s: %s is %s", kind, malformed.pointer, malformed.reason)
            return Applied(session_id, (), True, problem)
        return Applied(session_id, (), True)

    def _holder(self, session_id: str | None) -> SessionState:
        if session_id is None:
            return self.agent
        return self._touched(session_id, self._candidate(session_id))


def _string(value: Any) -> str | None:
    return value if type(value) is str else None


def _no_session(message: Mapping[str, Any], route: Route) -> Malformed:
    """A session effect with no session id: `missing` where no session path holds a value,
    `type` at the first that holds one that is not a string."""
    for path in route.session:
        if read(message, path) is not MISSING_VALUE:
            return Malformed(pointer("", path), WRONG_TYPE)
    return Malformed(pointer("", route.session[0]) if route.session else "", MISSING)


class StateSender:
    """A sender (the client's `Connection`, or a request context) that feeds the client state
    what the client sends and gets back: the request of a prompt turn when sent, the response of
    a request the table covers (`session/new`'s `configOptions`) when it arrives."""

    __slots__ = ("_results", "_sender", "_state")

    def __init__(self, sender: Any, state: ClientState) -> None:
        self._sender = sender
        self._state = state
        self._results = frozenset(m for m, part in state.table.routes() if part == RESULT)

    def request(
        self, method: str, params: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> Any:
        wire = params.to_wire() if hasattr(params, "to_wire") else params
        if method == self._state.table.turn:
            self._state.feed({"method": method, "params": wire})
        sent = self._sender.request(method, params, options)
        return self._answered(method, wire, sent) if method in self._results else sent

    async def _answered(self, method: str, params: Any, sent: Coroutine[Any, Any, Any]) -> Any:
        answer = await sent
        wire = answer.to_wire() if hasattr(answer, "to_wire") else answer
        self._state.feed({"method": method, "params": params, "result": wire})
        return answer

    def notify(self, method: str, params: Any = None) -> Any:
        return self._sender.notify(method, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sender, name)
