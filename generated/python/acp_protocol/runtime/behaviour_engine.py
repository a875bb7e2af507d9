# Copied by acp-codegen from templates/python/runtime/behaviour_engine.py. Do not edit here:
# edit the source, then run `make generate`.

"""The behaviour engine: every protocol rule a router carries out around the user's handlers.

Layer: typed layer (between `roles.Router` and the user's handlers).

One `BehaviourEngine` per connection reads the edition's `behaviour.Behaviour` (rendered per
edition from the IR) and the side's turn rule (`session_turns.TurnRule`, ACP v1's feature-level
cancellation), and decides, per method, what happens around the handler: version negotiation and
capabilities in `initialize`, v1's turns that `session/cancel` ends with a result, v2's prompt
lifecycle (`foreground`), `session/cancel` and `session/close`, the result a request cancelled by
the peer gets. The router has one path for every request: it routes, validates, and hands the
call to `request`, which runs it as is unless a rule owns the method. Nothing here asks which
edition it serves: every branch is on the rules' data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Protocol

from pydantic import BaseModel

from .behaviour import Behaviour, TurnRule, advertise
from .connection import Connection
from .errors import UnsupportedVersion
from .foreground import Foreground
from .request_state import DEFAULT_OPTIONS, CancelSource, RequestContext, RequestOptions
from .session_turns import SessionTurns, session_id_of
from .session_view import SessionViews

Call = Callable[[RequestContext], Awaitable[Any]]
"""The user's handler bound to its params, given the request context to run with."""


class NotServed(Exception):
    """Nothing answers the method: no handler, and no rule answers it without one (the router
    answers -32601). Its own class, so that a handler's `KeyError` or `LookupError` stays the
    handler's failure (-32603), never a "method not found"."""


class Sender(Protocol):
    """Where a typed peer sends: a `Connection`, or a `RequestContext` (nested requests)."""

    def request(
        self, method: str, params: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> Coroutine[Any, Any, Any]: ...

    def notify(self, method: str, params: Any = None) -> Coroutine[Any, Any, None]: ...


class BehaviourEngine:
    """What the edition's behaviour and the side's turn rule add to a router's handling.

    `advertised()` names the methods served (see `Router`): `initialize` advertises each
    capability whose required methods are all served, with the lifecycle's close (the SDK's).
    `receives` names the notifications this side receives."""

    def __init__(
        self,
        behaviour: Behaviour | None,
        turn_rule: TurnRule | None = None,
        *,
        advertised: Callable[[], Iterable[str]] = tuple,
        receives: Iterable[str] = (),
    ) -> None:
        self.behaviour = behaviour
        self._advertised = advertised
        self._connection: Connection | None = None
        self._foreground: Foreground | None = None
        self.views: SessionViews | None = None
        lifecycle = None if behaviour is None else behaviour.lifecycle
        self._insertion = lifecycle if lifecycle and lifecycle.answer == "insertion" else None
        received = frozenset(receives)
        # The side that receives the state updates (the client) keeps session views.
        states = None if self._insertion is None else self._insertion.states
        self._viewed = states is not None and states.notification in received
        self.turns = SessionTurns(turn_rule) if turn_rule is not None else None
        # The requests a rule acts around, fixed per connection: one set lookup per request.
        owned: list[str] = []
        notifications: list[str] = []
        if behaviour is not None:
            owned += [behaviour.negotiation.method, *behaviour.cancel_outcomes]
        if self._insertion is not None:
            owned += [m for m in (self._insertion.prompt, self._insertion.close) if m is not None]
            notifications.append(self._insertion.cancel)
        if turn_rule is not None:
            owned.append(turn_rule.method)
            if turn_rule.cancel_is_received:
                notifications.append(turn_rule.cancel_method)
        self._owned = frozenset(owned)
        self._notifications = frozenset(notifications)

    def bind(self, connection: Connection, updates: Sender | None = None) -> None:
        """`updates`: what the foreground's session updates go through (the connection)."""
        self._connection = connection
        if self._insertion is not None:
            self._foreground = Foreground(self._insertion, connection, updates)
            if self._viewed:
                self.views = SessionViews(self._insertion, connection)

    def current_state(self, session_id: str) -> str | None:
        """The session's foreground state on this connection (None: no lifecycle reports one)."""
        return None if self._foreground is None else self._foreground.state(session_id)

    @property
    def initialize(self) -> str | None:
        return None if self.behaviour is None else self.behaviour.negotiation.method

    # -- requests --------------------------------------------------------------------------

    def owns(self, method: str) -> bool:
        """Whether a rule acts around `method`'s handler (it may then answer without one)."""
        return method in self._owned

    def request(
        self, method: str, params: Any, context: RequestContext, call: Call | None
    ) -> Awaitable[Any]:
        """`call` (None: the user does not handle `method`) run under the rules of `method`;
        `NotServed` when nothing answers it. A method no rule owns is the call itself: no
        frame of the engine's stays on its stack."""
        if method not in self._owned:
            if call is None:
                raise NotServed(method)
            return call(context)
        return self._ruled(method, params, context, call)

    async def _ruled(
        self, method: str, params: Any, context: RequestContext, call: Call | None
    ) -> Any:
        if method == self.initialize:
            return await self._initialize(params, context, call)
        lifecycle = self._insertion
        session_id = session_id_of(params)
        if lifecycle is not None and self._foreground is not None and session_id is not None:
            if method == lifecycle.prompt and call is not None:
                return await self._foreground.prompt(session_id, context, call)
            if method == lifecycle.close:
                await self._foreground.close(session_id)
                return {} if call is None else await call(context)
        if call is None:
            raise NotServed(method)
        outcome = None if self.behaviour is None else self.behaviour.cancel_outcomes.get(method)
        turns = self.turns
        if turns is not None and method == turns.rule.method and session_id is not None:
            # prompt-turn.mdx: a turn that `session/cancel` ends answers the rule's result.
            request_id = context.request_id
            return await turns.run(
                session_id, request_id, lambda: _answered(call, context, outcome)
            )
        return await _answered(call, context, outcome)

    def negotiate(self, params: Any) -> int:
        """The version to answer `initialize` with these (raw) params; `UnsupportedVersion` when
        the edition has none for the version asked. The router asks before it validates the
        params: a client of another version sends them in its version's shape."""
        assert self.behaviour is not None, "negotiation needs the edition's behaviour"
        negotiation = self.behaviour.negotiation
        asked = params.get(negotiation.field) if isinstance(params, dict) else None
        version = self.behaviour.negotiate(asked)
        if version is None:
            raise UnsupportedVersion(
                code=negotiation.unsupported,
                data={"requested": asked, "supported": [negotiation.version]},
            )
        return version

    async def _initialize(self, params: Any, context: RequestContext, call: Call | None) -> Any:
        assert self.behaviour is not None
        negotiation = self.behaviour.negotiation
        version = self.negotiate(params)
        if call is None:
            raise NotServed(negotiation.method)
        result = await call(context)
        model = result if isinstance(result, BaseModel) else None
        wire = model.to_wire() if model is not None else dict(result)  # type: ignore[attr-defined]
        # "The highest protocol version supported by the agent that is at or below the version
        # requested by the client": the SDK's to say, never the handler's echo of the request.
        wire[negotiation.field] = version
        served = set(self._advertised())
        if self._insertion is not None and self._insertion.close is not None:
            served.add(self._insertion.close)  # the SDK's: it cancels the work, answers `{}`
        for capability in self.behaviour.capabilities:
            if capability.served_by(served):
                advertise(wire, capability)
        return wire if model is None else type(model).model_validate(wire)

    # -- notifications -----------------------------------------------------------------------

    def observed(self) -> tuple[str, ...]:
        """The notifications `observe` wants validated (the session views' updates), fixed per
        edition and side: the router checks them with one set lookup per notification."""
        states = None if self._insertion is None else self._insertion.states
        return (states.notification,) if self._viewed and states is not None else ()

    def observe(self, method: str, params: Any, typed: Any) -> None:
        """A validated notification the rules follow: `session/update` feeds the views."""
        if self.views is not None and method == self.views.notification:
            self.views.receive(params, typed)

    def notifications(self) -> frozenset[str]:
        """The notifications `notification` acts on (a cancel this side receives)."""
        return self._notifications

    def notification(self, method: str, params: Any) -> None:
        """Act on a notification before the user's handler sees it: `session/cancel` cancels
        the session's foreground work (v2) or its turns (v1)."""
        lifecycle = self._insertion
        if lifecycle is not None and method == lifecycle.cancel and self._foreground is not None:
            session_id = session_id_of(params)
            if session_id is not None:
                self._foreground.cancel(session_id)
        turns = self.turns
        if turns is not None and method == turns.rule.cancel_method:
            self.cancel_turns(params)

    def cancel_turns(self, cancel_params: Any) -> int:
        """Apply the turn rule to a cancel notification's params; how many turns it cancelled."""
        if self.turns is None or self._connection is None:
            return 0
        if isinstance(cancel_params, BaseModel):
            cancel_params = cancel_params.model_dump(mode="json", by_alias=True)
        return self.turns.cancel(self._connection, session_id_of(cancel_params))

    # -- what this side sends ----------------------------------------------------------------

    def sender(self, sender: Sender) -> Sender:
        """`sender` as the typed peers send through it: where this side sends the turn rule's
        cancel, its own turns are cancelled once it is sent."""
        turns = self.turns
        if turns is not None and not turns.rule.cancel_is_received:
            return _CancelAfterSending(sender, self)
        return sender


async def _answered(call: Call, context: RequestContext, outcome: Any) -> Any:
    """`call`'s result; with an `outcome`, a call the peer cancels (`$/cancel_request`) is
    answered with it, e.g. RequestPermissionOutcome: "The client answers a request the agent
    cancels with `$/cancel_request` with this outcome."""
    if outcome is None:
        return await call(context)
    try:
        return await call(context)
    except asyncio.CancelledError:
        if context.cancel_source is not CancelSource.PEER:
            raise
        return dict(outcome)


class _CancelAfterSending:
    """A sender that applies the turn rule after sending its cancel notification: the client
    "MUST respond to all pending `session/request_permission` requests with the `cancelled`
    outcome" once it has sent `session/cancel` (ACP `prompt-turn.mdx`)."""

    __slots__ = ("_engine", "_sender")

    def __init__(self, sender: Sender, engine: BehaviourEngine) -> None:
        self._sender = sender
        self._engine = engine

    def request(
        self, method: str, params: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> Coroutine[Any, Any, Any]:
        return self._sender.request(method, params, options)

    async def notify(self, method: str, params: Any = None) -> None:
        await self._sender.notify(method, params)
        turns = self._engine.turns
        if turns is not None and method == turns.rule.cancel_method:
            self._engine.cancel_turns(params)
