# Copied by acp-codegen from templates/python/runtime/foreground.py. Do not edit here:
# edit the source, then run `make generate`.

"""The prompt lifecycle where `session/prompt` is answered at insertion (ACP v2), agent side.

Layer: typed layer.

The router hands this module an edition's `PromptLifecycle` whose `answer` is `"insertion"`, and
it carries out what the schema's descriptions ask of the agent:

- `PromptResponse`: "Response acknowledging that a user prompt was inserted into the ACP
  conversation. [...] Processing and completion are reported through `state_update` session
  updates." A prompt is inserted with a fresh message id (echoed in a `user_message` update:
  "Agents must echo the message during the live session") and answered with that id; the user's
  prompt handler then runs as the session's foreground *work*, in a task of its own.
- `StateUpdate`: "the agent MUST report `running` when foreground work starts [...] and `idle`
  when it ends. The agent SHOULD include a stop reason on that idle update." The handler's return
  value is the stop reason (None: `end_turn`); a cancelled work ends `cancelled`, a failed one with
  the edition's failure reason and the error.
- A prompt sent while work runs is held and inserted when the work ends.
- `PromptRequest.idempotencyKey` (the lifecycle's `retry_key`): "A retry of a recorded insertion
  returns the original `messageId` without inserting another message." An insertion records its
  key for as long as the session is active on this connection ("For a live-only message, it MUST
  recognize the key while the session stays active on a connection"): a retry is answered at
  once, even while that insertion's work runs; a retry held behind work is answered when its turn
  comes, if the attempt it repeats was inserted meanwhile. The key's range (1 to 255 characters)
  is the schema's: the router answers any other value -32602 before this module sees it.
- `CancelSessionNotification`: "cancel a session's foreground work and its prompts not yet
  inserted": the work's task is cancelled (its pending nested requests first, with
  `$/cancel_request`), and held prompts are answered `-32800`.
- `CloseSessionRequest`: "When closing cancels active foreground work, the Agent MUST send the
  final updates for that work and the idle `state_update` with `stopReason: "cancelled"` before
  responding successfully to `session/close`."; "Closing a session that does not exist or is not
  active SHOULD succeed".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from .behaviour import PromptLifecycle, StateUpdates
from .connection import Connection
from .errors import ConnectionClosed, RequestCancelled, error_for_exception
from .incoming import cancel_children
from .request_state import (
    DEFAULT_OPTIONS,
    CancelSource,
    InFlight,
    RequestContext,
    RequestOptions,
    current_request,
)

if TYPE_CHECKING:
    from .cancellation import CancelSignal

log = logging.getLogger(__name__)

Work = Callable[[RequestContext], Awaitable[Any]]
"""The prompt handler, bound to its params: runs with the work's own request context."""


class WorkContext(RequestContext):
    """The request context of a prompt's foreground work: the prompt request (already answered
    at insertion) and the inserted message's id. Cancelling the work cancels its nested
    requests, as cancelling a request does.

    StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as a
    whole cannot progress without user action, including permissions or elicitations. Once
    reported, it MUST report `running` when progress resumes". A nested request of the
    lifecycle's `user_action` kinds reports `requires_action` when it is the first pending one and
    `running` when the last one is answered and the work goes on ("Resolving one of several
    requests does not itself change the state"); a work cancelled meanwhile goes to `idle`
    instead."""

    __slots__ = ("_report", "_states", "_waiting", "message_id")

    def __init__(
        self,
        connection: Connection,
        entry: InFlight,
        message_id: str,
        report: Callable[[str], Awaitable[None]] | None = None,
        states: StateUpdates | None = None,
    ) -> None:
        super().__init__(connection, entry)
        self.message_id = message_id
        self._report = report  # sends a state update of this work's session
        self._states = states
        self._waiting = 0  # user-action requests pending

    @property
    def entry(self) -> InFlight:
        return self._entry

    @property
    def waiting(self) -> bool:
        """Whether a request waiting on the user is pending (`requires_action` reported)."""
        return self._waiting > 0

    def request(
        self,
        method: str,
        params: Any = None,
        options: RequestOptions = DEFAULT_OPTIONS,
        *,
        cancel: CancelSignal | None = None,
        cascade: bool | None = None,
        parse: Callable[[Any], Any] | None = None,
    ) -> Coroutine[Any, Any, Any]:
        sent = super().request(method, params, options, cancel=cancel, cascade=cascade, parse=parse)
        states = self._states
        if states is None or method not in states.user_action:
            return sent
        return self._awaiting_user(sent, states)

    async def _awaiting_user(self, sent: Coroutine[Any, Any, Any], states: StateUpdates) -> Any:
        assert self._report is not None
        self._waiting += 1
        try:
            if self._waiting == 1:
                try:
                    await self._report(states.requires_action)
                except BaseException:
                    sent.close()  # never sent: no "coroutine was never awaited"
                    raise
            result = await sent
        except asyncio.CancelledError:
            self._waiting -= 1
            raise  # the work is cancelled: it ends `idle`, never `running`
        except BaseException:
            self._waiting -= 1
            await self._resumed(states)
            raise
        self._waiting -= 1
        await self._resumed(states)
        return result

    async def _resumed(self, states: StateUpdates) -> None:
        if self._waiting == 0 and self._entry.cancel_source is None and self._report is not None:
            await self._report(states.running)


@dataclass(slots=True, eq=False)
class _Session:
    """One session's foreground state: the running work, and the prompts held behind it."""

    work: asyncio.Task[None] | None = None
    entry: InFlight | None = None
    held: deque[asyncio.Future[None]] = field(default_factory=deque)
    context: WorkContext | None = None
    """The running work's context (whether it waits on the user)."""
    inserted: dict[str, str] = field(default_factory=dict)
    """The message id of each insertion that carried a retry key, by key."""


class Foreground:
    """The sessions' foreground work on one connection (agent side, answer at insertion)."""

    def __init__(
        self, lifecycle: PromptLifecycle, connection: Connection, updates: Any = None
    ) -> None:
        assert lifecycle.states is not None and lifecycle.message_id is not None
        self._lifecycle = lifecycle
        self._states: StateUpdates = lifecycle.states
        self._connection = connection
        self._updates = connection if updates is None else updates
        """What the session updates go through (a session store's recorder wraps it)."""
        self._sessions: dict[str, _Session] = {}

    def state(self, session_id: str) -> str:
        """The session's foreground state now: `running` while a work runs (`requires_action`
        while it waits on the user), else `idle` ("A new session defaults to idle")."""
        session = self._sessions.get(session_id)
        if session is None or session.entry is None:
            return self._states.idle
        waiting = session.context is not None and session.context.waiting
        return self._states.requires_action if waiting else self._states.running

    async def prompt(self, session_id: str, request: RequestContext, work: Work) -> dict[str, Any]:
        """Insert a prompt (once the session's work before it ended) and start its work; the
        answer of the prompt request: `{messageId: ...}`."""
        session = self._sessions.setdefault(session_id, _Session())
        key = self._retry_key(request.params)
        if key is not None and key in session.inserted:
            return self._answer(session.inserted[key])  # a retry: nothing is inserted
        if session.entry is not None or session.held:
            # Held: inserted when the work ahead of it ends; `$/cancel_request` withdraws it
            # (its CancelledError propagates: -32800), `session/cancel` answers it -32800.
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            session.held.append(waiter)
            try:
                await waiter
            finally:
                with contextlib.suppress(ValueError):
                    session.held.remove(waiter)
            if key is not None and key in session.inserted:
                _insert_next(session)  # inserted while this retry was held: it is its turn
                return self._answer(session.inserted[key])
        message_id = uuid.uuid4().hex
        if key is not None:
            session.inserted[key] = message_id
        entry = InFlight(request.request_id, request.method, request.params)
        session.entry = entry  # from here on, `session/cancel` cancels this work
        prompt = request.params.get("prompt") if isinstance(request.params, dict) else None
        echo = {self._states.update_tag: self._states.user_message, "messageId": message_id}
        await self._update(session_id, echo | ({"content": prompt} if prompt is not None else {}))
        await self._state(session_id, self._states.running)
        report = partial(self._state, session_id)
        context = WorkContext(self._connection, entry, message_id, report, self._states)
        session.context = context
        session.work = asyncio.get_running_loop().create_task(self._run(session, context, work))
        self._connection.track(session.work)
        return self._answer(message_id)

    def _answer(self, message_id: str) -> dict[str, Any]:
        return {self._lifecycle.message_id: message_id}  # type: ignore[dict-item]

    def _retry_key(self, params: Any) -> str | None:
        field_name = self._lifecycle.retry_key
        if field_name is None or not isinstance(params, dict):
            return None
        key = params.get(field_name)  # "Omitted and `null` are equivalent and mean no key."
        return key if isinstance(key, str) else None

    def cancel(self, session_id: str) -> asyncio.Task[None] | None:
        """`session/cancel`: answer the held prompts -32800, cancel the running work (its nested
        requests first); the work's task, which ends with the idle update."""
        session = self._sessions.get(session_id)
        if session is None:
            return None
        while session.held:
            waiter = session.held.popleft()
            if not waiter.done():
                waiter.set_exception(RequestCancelled(data={"reason": self._lifecycle.cancel}))
        work, entry = session.work, session.entry
        if entry is None or entry.cancel_source is not None:
            return work
        entry.cancel_source = CancelSource.SESSION
        if entry.cancel_event is not None:
            entry.cancel_event.set()
        cancel_children(entry)
        if work is not None and entry.started:
            work.cancel()  # a work not started yet sees `cancel_source` at its start
        return work

    async def close(self, session_id: str) -> None:
        """`session/close`: cancel as `session/cancel` does and return once the work's idle
        update is written; the session's state is then forgotten."""
        work = self.cancel(session_id)
        if work is not None:
            await asyncio.wait((work,))
        self._sessions.pop(session_id, None)

    async def _run(self, session: _Session, ctx: WorkContext, work: Work) -> None:
        lifecycle, entry = self._lifecycle, ctx.entry
        entry.started = True
        current_request.set(entry)  # the work's nested requests are its children
        session_id = ctx.params["sessionId"]
        reason: Any = lifecycle.end_turn
        error: dict[str, Any] | None = None
        try:
            if entry.cancel_source is not None:
                raise asyncio.CancelledError  # cancelled between insertion and its start
            result = await work(ctx)
            if isinstance(result, str):
                reason = result
        except asyncio.CancelledError:
            reason = lifecycle.cancelled
        except Exception as failure:  # the work failed: reported, never lost
            log.error("the work of prompt %r failed", ctx.request_id, exc_info=failure)
            reason = lifecycle.failed or lifecycle.end_turn
            error = error_for_exception(failure, include_traceback=False)
        finally:
            cancel_children(entry)
        idle: dict[str, Any] = {self._states.stop_reason: reason}
        if error is not None and lifecycle.failed is not None:
            idle["error"] = error
        try:
            await self._state(session_id, self._states.idle, idle)
        except (ConnectionClosed, asyncio.CancelledError):
            pass  # the connection is gone: nobody is left to tell
        finally:
            session.work = session.entry = session.context = None
            _insert_next(session)

    async def _state(
        self, session_id: str, state: str, extra: dict[str, Any] | None = None
    ) -> None:
        states = self._states
        update = {states.update_tag: states.update_value, states.state_tag: state}
        await self._update(session_id, update | (extra or {}))

    async def _update(self, session_id: str, update: dict[str, Any]) -> None:
        await self._updates.notify(
            self._states.notification, {"sessionId": session_id, "update": update}
        )


def _insert_next(session: _Session) -> None:
    """The session's next held prompt is inserted now."""
    for waiter in session.held:
        if not waiter.done():
            waiter.set_result(None)
            break
