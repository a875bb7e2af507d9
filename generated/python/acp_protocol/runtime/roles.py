# Copied by acp-codegen from templates/python/runtime/roles.py. Do not edit here:
# edit the source, then run `make generate`.

"""The runtime half of the generated typed layer: the router, handler contexts, typed results
(the typed peers' base is `peer.Peer`; handler contexts in
`handler_context`).

Generated per edition (`acp_protocol.v1`, `acp_protocol.v1.unstable`):
- `agent.py` / `client.py`: the handler base class of the side (`Agent`: one async method per method
  agents handle), its context class (`AgentContext`), its connection class and entry points;
- `peers.py`: the typed handle on each side (`ClientPeer`: one method per method clients handle).
They subclass what is here. This module is method-agnostic: the routes come from the generated
method table, and ACP's feature-level cancellation given by the generated role module
(`TURN_RULE`: its entry of the behaviour table's `turn_rules`, see `session_turns`), carried out
with the rest of the edition's behaviour by one `behaviour_engine.BehaviourEngine`.

"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from .behaviour import Behaviour, TurnRule
from .behaviour_engine import BehaviourEngine, NotServed, Sender
from .client_state import ClientState, StateSender, StateTable
from .connection import Connection
from .errors import (
    InternalError,
    InvalidParams,
    MethodNotFound,
    validation_details,
    validation_summary,
)
from .handler_context import HandlerContext as HandlerContext  # its import path before the split
from .handler_context import PeerT
from .method_spec import MethodSpec
from .request_state import RequestContext
from .session_replay import SessionReplay
from .session_view import SessionViews
from .validators import validator_for

log = logging.getLogger(__name__)


class Route:
    """One method the router serves: its table entry and the implementation's bound method (None
    when it does not override the base class's)."""

    __slots__ = ("_validate", "handler", "plain", "spec")

    def __init__(self, spec: MethodSpec, handler: Callable[[Any, Any], Awaitable[Any]] | None):
        self.spec = spec
        self.handler = handler
        self._validate: Callable[[Any], Any] | None = None
        self.plain = False
        """Whether nothing but the handler answers it: no rule, store, state feed or replay
        around it (set by the router), so a request is validated, handled and checked only."""

    def params(self, params: Any) -> Any:
        """`params` validated as the method's params type (its models are built on first use)."""
        validate = self._validate
        if validate is None:
            validate = self._validate = validator_for(self.spec.params_type)
        return validate(params)


class Router(Generic[PeerT]):
    """The `Handler` between the dispatcher and an object implementing a generated base class.

    - Every method of the table that `side` handles is routed; params are validated per method
      (`-32602` with pydantic's error list in `data`).
    - A method the implementation does not override answers `-32601`; a notification it does not
      override is ignored.
    - `_`-prefixed names go to `extension_request` / `extension_notification` when overridden:
      otherwise `-32601`, and an unknown notification is ignored ("Unknown notifications SHOULD be
      ignored", ACP `extensibility.mdx`). `$/` methods never get here: they are the runtime's.
    - One path for every request: routed, its params validated, then run by the behaviour
      engine (`behaviour_engine`), which carries out the side's `TurnRule` (ACP v1's
      `session/cancel`, see `session_turns`) and the edition's `Behaviour`: version negotiation and
      capabilities in
      `initialize`, computed from what is served: the methods the implementation overrides, the
      notifications received, the SDK's own (`advertised()`, such as `session/list` from a
      `session_store`; the lifecycle's close); never a base method answering -32601. Then the
      prompt lifecycle, the result of a request the peer cancels.
    """

    def __init__(
        self,
        implementation: object,
        *,
        base: type,
        methods: Iterable[MethodSpec],
        side: str,
        context_type: Callable[..., HandlerContext[PeerT]],
        peer_type: Callable[[Sender], PeerT],
        behaviour: Behaviour | None = None,
        advertised: Callable[[], Iterable[str]] = tuple,
        state_table: StateTable | None = None,
        replay: SessionReplay | None = None,
    ) -> None:
        self.client_state = None if state_table is None else ClientState(state_table)
        """The client's state of its sessions and agent (`client_state`), fed here."""
        state = self.client_state
        self._state_feeds = (
            {} if state is None else {m: state.feeder(m) for m in state.table.methods()}
        )
        """Per method whose messages change the client state, what feeds it their params."""
        self._context_type = context_type
        self._peer_type = peer_type
        self._requests: dict[str, Route] = {}
        self._notifications: dict[str, Route] = {}
        for spec in methods:
            if spec.side in (side, "both"):
                table = self._requests if spec.kind == "request" else self._notifications
                table[spec.name] = Route(spec, _override(implementation, base, spec.handler_name))
        # What the implementation serves by its own code (a `provided` base method answering
        # -32601 without what it needs is not), and every notification received (the SDK acts on
        # the cancel; any other is handled or ignored). `advertised()` adds what the SDK answers
        # from what the implementation holds (`session/list` from a `session_store`).
        implemented = frozenset(
            [
                name
                for name, route in self._requests.items()
                if _overrides(implementation, base, route.spec.handler_name)
            ]
            + list(self._notifications)
        )
        # The side's turn rule is an entry of the behaviour table: the one of a request it handles.
        turn_rule = None if behaviour is None else behaviour.turn_rule_for(self._requests)
        # What an agent's session store answers when the agent does not (`session_replay`).
        self._replay = replay
        self._from_store = {} if replay is None else dict(replay.methods)
        for name in list(self._from_store):
            route = self._requests.get(name)
            if route is None or route.handler is not None:
                del self._from_store[name]
        stored = frozenset(self._from_store)
        self._engine = BehaviourEngine(
            behaviour,
            turn_rule,
            advertised=lambda: implemented.union(advertised(), stored),
            receives=self._notifications,
        )
        # The notifications a rule acts on before the handler (`session/cancel`).
        self._rule_notifications = self._engine.notifications()
        # The notifications the rules observe once validated (a client's session views).
        self._observed = frozenset(self._engine.observed())
        self._initialize = self._engine.initialize
        for name, route in self._requests.items():
            route.plain = (
                route.handler is not None
                and replay is None
                and name not in self._from_store
                and name not in self._state_feeds
                and name != self._initialize
                and not self._engine.owns(name)
            )
        self._extension_request = _override(implementation, base, "extension_request")
        self._extension_notification = _override(implementation, base, "extension_notification")
        self._connection: Connection | None = None
        self._peer: PeerT | None = None
        self._notification_ctx: HandlerContext[PeerT] | None = None

    def bind(self, connection: Connection) -> PeerT:
        """Attach the connection this router serves; returns the connection-wide typed peer."""
        self._connection = connection
        replay = self._replay
        # The foreground's session updates (echo, states) are recorded and held as the agent's.
        self._engine.bind(connection, None if replay is None else replay.sender(connection))
        if replay is not None:
            replay.state_of = self._engine.current_state
        if self._engine.views is not None:
            self._engine.views.client_state = self.client_state
        self._peer = self._peer_type(self._sender_for(connection))
        # One context serves every notification: it has no request and the connection's peer.
        self._notification_ctx = self._context_type(None, self._peer)
        return self._peer

    def _sender_for(self, sender: Sender) -> Sender:
        sender = self._engine.sender(sender)
        if self._replay is not None:
            sender = self._replay.sender(sender)
        if self.client_state is not None:
            return StateSender(sender, self.client_state)
        return sender

    def _notification_context(self) -> HandlerContext[PeerT]:
        assert self._notification_ctx is not None, "Router.bind() was not called"
        return self._notification_ctx

    async def handle_request(self, method: str, params: Any, context: RequestContext) -> Any:
        route = self._requests.get(method)
        if route is not None and route.plain:
            # The one path below with nothing around the handler, without its steps.
            try:
                typed = route.params(params)
            except ValidationError as error:
                raise InvalidParams.from_validation(error) from None
            handler = route.handler
            assert handler is not None
            return _checked_result(route.spec, await handler(typed, self._context(context)))
        engine = self._engine
        from_store = self._from_store.get(method)
        if route is None or (route.handler is None and not from_store and not engine.owns(method)):
            if route is None and method.startswith("_") and self._extension_request is not None:
                return await self._extension_request(method, params, self._context(context))
            raise MethodNotFound(data={"method": method})
        if method == self._initialize:
            engine.negotiate(params)  # a client of another version: -32022, whatever its params
        try:
            typed = route.params(params)
        except ValidationError as error:
            raise InvalidParams.from_validation(error) from None
        feed_state = self._state_feeds.get(method)
        if feed_state is not None:
            feed_state(params)
        handler = route.handler
        call = None if handler is None else partial(self._call, handler, typed)
        if call is not None and self._replay is not None:
            call = self._replay.committing(method, call)
        if from_store is not None:
            call = partial(from_store, typed)
        try:
            result = await engine.request(method, params, context, call)
        except NotServed:
            raise MethodNotFound(data={"method": method}) from None
        result = _checked_result(route.spec, result)
        if self._replay is not None:
            await self._replay.answered(method, typed, result)
        return result

    def _call(
        self, handler: Callable[[Any, Any], Awaitable[Any]], typed: Any, request: RequestContext
    ) -> Awaitable[Any]:
        """`handler` on `typed`, in a context made for `request` (a rule may give its own)."""
        return handler(typed, self._context(request))

    def _context(self, request: RequestContext) -> HandlerContext[PeerT]:
        make_peer = partial(self._peer_for, request)
        return self._context_type(request, None, make_peer)

    def _peer_for(self, request: RequestContext) -> PeerT:
        """The typed peer of one request's handler: what it sends are the request's children."""
        return self._peer_type(self._sender_for(request))

    def handle_notification(self, method: str, params: Any) -> Awaitable[None] | None:
        if method in self._rule_notifications:
            self._engine.notification(method, params)
        route = self._notifications.get(method)
        observed = method in self._observed
        feed_state = self._state_feeds.get(method)
        stateful = feed_state is not None
        if route is None or (route.handler is None and not observed and not stateful):
            if route is None and method.startswith("_") and self._extension_notification:
                return self._extension_notification(  # type: ignore[no-any-return]
                    method, params, self._notification_context()
                )
            log.debug("ignored notification %s: no handler", method)
            return None
        try:
            typed = route.params(params)
        except ValidationError as error:
            # A notification cannot be answered: log it and keep the connection.
            log.warning(
                "dropped %s notification, invalid params: %s", method, validation_summary(error)
            )
            return None
        if feed_state is not None:
            feed_state(params)
        if observed:
            self._engine.observe(method, params, typed)  # the client's session views
        if route.handler is None:
            return None
        context = self._notification_ctx
        assert context is not None, "Router.bind() was not called"
        return route.handler(typed, context)

    def cancel_turns(self, cancel_params: Any) -> int:
        """Apply the turn rule to a cancel notification's params; how many turns it cancelled."""
        return self._engine.cancel_turns(cancel_params)

    @property
    def turn_rule(self) -> TurnRule | None:
        turns = self._engine.turns
        return None if turns is None else turns.rule

    @property
    def session_views(self) -> SessionViews | None:
        """The client's session views, where the edition's prompt lifecycle answers at
        insertion; None elsewhere."""
        return self._engine.views


_PROVIDED = "__acp_provided__"


MethodT = TypeVar("MethodT", bound=Callable[..., Any])


def provided(method: MethodT) -> MethodT:
    """Mark a base-class method that works without an override (`session/list` from a store)."""
    setattr(method, _PROVIDED, True)
    return method


def _overrides(implementation: object, base: type, name: str) -> bool:
    """Whether `implementation`'s class defines `name` itself (not the base class's method)."""
    method = getattr(type(implementation), name, None)
    return method is not None and method is not getattr(base, name, None)


def _override(implementation: object, base: type, name: str) -> Any:
    """`implementation`'s bound method `name` if its class overrides `base`'s or the base method is
    `provided`, else None."""
    method = getattr(type(implementation), name, None)
    if method is getattr(base, name, None) and not getattr(method, _PROVIDED, False):
        return None
    return getattr(implementation, name)


def _checked_result(spec: MethodSpec, result: Any) -> Any:
    """The handler's result as the method's result type (a model passes as is)."""
    result_type = spec.result_type
    if isinstance(result_type, type) and isinstance(result, result_type):
        return result
    if not isinstance(result_type, type) and isinstance(result, BaseModel):
        return result  # a variant of a union result type
    try:
        return validator_for(result_type)(result)
    except ValidationError as error:
        detail = f"the handler of {spec.name} returned {type(result).__name__}, not a valid result"
        log.error("%s: %s", detail, validation_summary(error))
        raise InternalError(data={"details": detail, **validation_details(error)}) from None


RoleConnectionT = TypeVar("RoleConnectionT", bound="RoleConnection[Any]")


class RoleConnection(Generic[PeerT]):
    """A typed connection: the dispatcher, the router in front of the handler object, and the
    peer's typed handle. An async context manager, like `Connection`."""

    def __init__(self, connection: Connection, router: Router[PeerT]) -> None:
        self.connection = connection
        self.peer: PeerT = router.bind(connection)
        self._router = router

    def start(self) -> None:
        self.connection.start()

    async def __aenter__(self: RoleConnectionT) -> RoleConnectionT:
        self.connection.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.connection.close()

    async def close(self) -> None:
        await self.connection.close()

    async def wait_closed(self) -> None:
        """Return when the peer is gone or `close()` finished."""
        await self.connection.wait_closed()
