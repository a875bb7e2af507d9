"""An edition's behaviour rules applied to the requests and notifications a router serves.

Layer: typed layer (between `roles.Router` and the user's handlers).

`EditionRules` reads one `behaviour.Behaviour` (rendered per edition from the IR) and decides, per
method, what happens around the user's handler: version negotiation and capabilities in
`initialize`, the prompt lifecycle (`foreground`), `session/cancel` and `session/close`, the result
a request cancelled by the peer gets, and the answer to cancelling an unknown target. It never
asks which edition it serves: every branch is on the behaviour's data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pydantic import BaseModel

from .behaviour import Behaviour, advertise
from .connection import Connection
from .errors import UnsupportedVersion
from .foreground import Foreground
from .request_state import CancelSource, RequestContext
from .session_turns import session_id_of
from .session_view import SessionViews

Call = Callable[[RequestContext], Awaitable[Any]]
"""The user's handler bound to its params, given the request context to run with."""


class EditionRules:
    """What one edition's behaviour adds to a router's handling (one per connection).

    `advertised()` names the methods served (see `Router`): `initialize` advertises each
    capability whose required methods are all served, with the lifecycle's close (the SDK's)."""

    def __init__(
        self,
        behaviour: Behaviour,
        *,
        advertised: Callable[[], Iterable[str]] = tuple,
        receives: Iterable[str] = (),
    ) -> None:
        self.behaviour = behaviour
        self._advertised = advertised
        self._foreground: Foreground | None = None
        self.views: SessionViews | None = None
        lifecycle = behaviour.lifecycle
        self._insertion = lifecycle if lifecycle and lifecycle.answer == "insertion" else None
        # The side that receives the state updates (the client) keeps session views.
        states = None if self._insertion is None else self._insertion.states
        self._viewed = states is not None and states.notification in set(receives)
        # The requests a rule acts around, fixed per edition: one set lookup per request.
        self._owned = frozenset(
            (behaviour.negotiation.method, *behaviour.cancel_outcomes)
            + (() if self._insertion is None else (self._insertion.prompt, self._insertion.close))
        )

    def bind(self, connection: Connection) -> None:
        if self._insertion is not None:
            self._foreground = Foreground(self._insertion, connection)
            if self._viewed:
                self.views = SessionViews(self._insertion, connection)

    @property
    def initialize(self) -> str:
        return self.behaviour.negotiation.method

    # -- requests --------------------------------------------------------------------------

    def owns(self, method: str) -> bool:
        """Whether a rule acts around `method`'s handler (the router's fast path skips this)."""
        return method in self._owned

    async def request(
        self, method: str, params: Any, context: RequestContext, call: Call | None
    ) -> Any:
        """Run `call` (None: the user does not handle `method`) under the rules of `method`."""
        lifecycle = self._insertion
        if method == self.initialize:
            return await self._initialize(params, context, call)
        if lifecycle is not None and self._foreground is not None:
            session_id = session_id_of(params)
            if method == lifecycle.prompt and call is not None and session_id is not None:
                return await self._foreground.prompt(session_id, context, call)
            if method == lifecycle.close and session_id is not None:
                await self._foreground.close(session_id)
                return {} if call is None else await call(context)
        outcome = self.behaviour.cancel_outcomes.get(method)
        if outcome is not None and call is not None:
            try:
                return await call(context)
            except asyncio.CancelledError:
                if context.cancel_source is not CancelSource.PEER:
                    raise
                # e.g. RequestPermissionOutcome: "The client answers a request the agent
                # cancels with `$/cancel_request` with this outcome."
                return dict(outcome)
        if call is None:
            raise LookupError(method)
        return await call(context)

    def negotiate(self, params: Any) -> int:
        """The version to answer `initialize` with these (raw) params; `UnsupportedVersion` when
        the edition has none for the version asked. The router asks before it validates the
        params: a client of another version sends them in its version's shape."""
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
        negotiation = self.behaviour.negotiation
        version = self.negotiate(params)
        if call is None:
            raise LookupError(self.initialize)
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

    def notifications(self) -> tuple[str, ...]:
        """The notifications `notification` acts on."""
        return () if self._insertion is None else (self._insertion.cancel,)

    def notification(self, method: str, params: Any) -> None:
        """Act on a notification before the user's handler sees it (`session/cancel`)."""
        lifecycle = self._insertion
        if lifecycle is not None and method == lifecycle.cancel and self._foreground is not None:
            session_id = session_id_of(params)
            if session_id is not None:
                self._foreground.cancel(session_id)
