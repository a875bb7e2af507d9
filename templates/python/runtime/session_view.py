"""The client's view of one session under a prompt lifecycle answered at insertion (ACP v2): send
a prompt and get its message id, follow the session's updates, and wait until its foreground work
is idle again, with the stop reason.

Layer: typed layer (the router hands it each validated `session/update`; it sends through the
connection). Methods, tags and values come from the edition's `PromptLifecycle`; nothing here
asks which edition it serves. The same view as the TypeScript runtime's `session_view.ts`.

- `PromptResponse`: "Response acknowledging that a user prompt was inserted into the ACP
  conversation. [...] Processing and completion are reported through `state_update` session
  updates."
- `StateUpdate`: "A new session defaults to idle until a state update reports otherwise."
- `IdleStateUpdate`: "Receivers treat an omitted, `null`, or malformed `stopReason` as the agent
  not reporting one."
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .behaviour import PromptLifecycle, StateUpdates
from .client_state import Applied, ClientState
from .request_state import DEFAULT_OPTIONS, RequestOptions
from .session_state import SessionState

UpdateT = TypeVar("UpdateT")
BlockT = TypeVar("BlockT")


class ViewSender(Protocol):
    """What a view sends through: the client's `Connection`."""

    def request(
        self, method: str, params: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> Any: ...

    async def notify(self, method: str, params: Any = None) -> None: ...


@dataclass(frozen=True, slots=True)
class Idle:
    """The end of a piece of foreground work."""

    stop_reason: str | None
    """The idle update's stop reason (None: the agent reported none)."""


class SessionView(Generic[UpdateT, BlockT]):
    """One session as the client sees it. Made on first use by `ClientConnection.session()`, it
    keeps every update of its session from then on (`updates`), in arrival order."""

    def __init__(
        self,
        session_id: str,
        lifecycle: PromptLifecycle,
        sender: ViewSender,
        client_state: ClientState | None = None,
    ) -> None:
        assert lifecycle.states is not None and lifecycle.message_id is not None
        self.session_id = session_id
        self._client_state = client_state
        self.updates: list[UpdateT] = []
        self._wire: list[Mapping[str, Any]] = []
        self._lifecycle = lifecycle
        self._states: StateUpdates = lifecycle.states
        self._sender = sender
        self.state: str = lifecycle.states.idle
        """The foreground state last reported (idle until a state update says otherwise)."""
        self.stop_reason: str | None = None
        """The stop reason of the last idle update (None: none reported yet)."""
        self._wakers: set[asyncio.Future[None]] = set()

    @property
    def session_state(self) -> SessionState:
        """The session as its updates left it (`session_state`): messages with their chunks,
        tool calls, terminals, the plan, commands, config options, info, usage, the run
        state, each keyed as the schema's `x-state` says. (`state` is the run state string.)"""
        if self._client_state is None:
            raise RuntimeError("this connection keeps no client state")
        return self._client_state.session(self.session_id)

    def state_snapshot(self) -> dict[str, Any]:
        """`session_state.snapshot()`: the session's state as plain JSON."""
        return self.session_state.snapshot()

    def on_state_change(self, listener: Callable[[Applied], None]) -> Callable[[], None]:
        """Call `listener` with what changed after each update applied to this session's state
        (`Applied.changes`: target, entry id, action); returns the function that unsubscribes."""
        if self._client_state is None:
            raise RuntimeError("this connection keeps no client state")
        return self._client_state.subscribe(listener, self.session_id)

    async def prompt(self, prompt: Sequence[BlockT], **params: Any) -> str:
        """Send `session/prompt`; the inserted message's id (a held prompt returns when the agent
        inserts it). `params` are further fields of the request (`_meta`)."""
        answer = await self._sender.request(
            self._lifecycle.prompt, {"sessionId": self.session_id, "prompt": prompt, **params}
        )
        assert self._lifecycle.message_id is not None
        wire = answer.to_wire() if hasattr(answer, "to_wire") else answer
        return str(wire[self._lifecycle.message_id])

    async def cancel(self) -> None:
        """`session/cancel`: the session's foreground work and its prompts not yet inserted."""
        await self._sender.notify(self._lifecycle.cancel, {"sessionId": self.session_id})

    async def idle(self, message_id: str | None = None) -> Idle:
        """The idle update that ends the work of the prompt inserted as `message_id` (the first
        idle after its echo: a `user_message`, or a `user_message_chunk`, with that id), however
        early it arrived; without an id, at once
        if the session is idle, else at the next idle update."""
        if message_id is None:
            if self.state == self._states.idle:
                return Idle(self.stop_reason)
            start = len(self._wire)
        while True:
            if message_id is not None:
                start = self._echo_of(message_id)
            if start >= 0:
                found = self._idle_from(start)
                if found is not None:
                    return found
            await self._next()

    async def stream(self) -> AsyncIterator[UpdateT]:
        """The updates from the view's first on, then each as it arrives (never ends: break
        out of it)."""
        index = 0
        while True:
            while index < len(self.updates):
                yield self.updates[index]
                index += 1
            await self._next()

    def receive(self, update: UpdateT, wire: Mapping[str, Any]) -> None:
        """One update of this session, typed and as it came (the router calls it, in arrival
        order)."""
        self.updates.append(update)
        self._wire.append(wire)
        states = self._states
        if wire.get(states.update_tag) == states.update_value:
            state = wire.get(states.state_tag)
            if isinstance(state, str):
                self.state = state
                if state == states.idle:
                    self.stop_reason = _stop_reason(wire, states)
        wakers, self._wakers = self._wakers, set()
        for waker in wakers:
            if not waker.done():
                waker.set_result(None)

    async def _next(self) -> None:
        waker: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._wakers.add(waker)
        try:
            await waker
        finally:
            self._wakers.discard(waker)

    def _echo_of(self, message_id: str) -> int:
        states = self._states
        for index, wire in enumerate(self._wire):
            tag = wire.get(states.update_tag)
            echo = tag in (states.user_message, states.user_chunk)
            if echo and wire.get("messageId") == message_id:
                return index
        return -1

    def _idle_from(self, start: int) -> Idle | None:
        states = self._states
        for wire in self._wire[start:]:
            tag, state = wire.get(states.update_tag), wire.get(states.state_tag)
            if tag == states.update_value and state == states.idle:
                return Idle(_stop_reason(wire, states))
        return None


def _stop_reason(wire: Mapping[str, Any], states: StateUpdates) -> str | None:
    # "Receivers treat an omitted, `null`, or malformed `stopReason` as the agent not reporting
    # one."
    value = wire.get(states.stop_reason)
    return value if isinstance(value, str) else None


class SessionViews:
    """The views of one connection's sessions, fed by the router."""

    def __init__(self, lifecycle: PromptLifecycle, sender: ViewSender) -> None:
        assert lifecycle.states is not None
        self.notification = lifecycle.states.notification
        self._lifecycle = lifecycle
        self._sender = sender
        self._views: dict[str, SessionView[Any, Any]] = {}
        self.client_state: ClientState | None = None
        """The connection's client state (set by the router), which the views read."""

    def view(self, session_id: str) -> SessionView[Any, Any]:
        """The view of `session_id` (made on first use; it sees the updates from then on)."""
        view = self._views.get(session_id)
        if view is None:
            view = SessionView(session_id, self._lifecycle, self._sender, self.client_state)
            self._views[session_id] = view
        return view

    def forget(self, session_id: str) -> None:
        """Drop a session's view (after `session/close`); a later `view()` starts afresh."""
        self._views.pop(session_id, None)

    def receive(self, params: Any, typed: Any) -> None:
        """A `session/update` notification: raw `params` and the validated model."""
        if not isinstance(params, dict):
            return
        session_id = params.get("sessionId")
        view = self._views.get(session_id) if isinstance(session_id, str) else None
        update = params.get("update")
        if view is not None and isinstance(update, dict):
            view.receive(getattr(typed, "update", update), update)
