# Copied by acp-codegen from templates/python/runtime/incoming.py. Do not edit here:
# edit the source, then run `make generate`.

"""Incoming requests (dispatcher layer): the in-flight table, handler tasks, the cancel cascade.

`IncomingRequests` starts one task per request the peer sends, answers it exactly once from the
handler's outcome (the one exception → error mapping), and cancels handlers: when the peer sends
the dialect's cancel, when a feature cancels a turn (`session/cancel`), and at shutdown. A
cancelled handler's own pending requests are cancelled first ("Propagate cancellation to any
nested/child requests"). It reaches the wire only through the small `Inbound` protocol.

Ownership: each handler task is created here and held by its in-flight entry until it has been
answered; `cancel_all` cancels and awaits what is left, so no handler outlives its connection.
That is a task group, kept by hand rather than with `asyncio.TaskGroup`: a task group cancels every
sibling when one handler fails, while one failing request must only be answered with its error;
and `TaskGroup` is Python 3.11+, the runtime supports 3.10.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Protocol

from .cancellation import CancelDialect
from .errors import (
    ConnectionClosed,
    MethodNotFound,
    RequestCancelled,
    RpcError,
    cancelled_error,
    error_for_exception,
)
from .frames import Request, RequestId, error_frame, invalid_request_error, result_frame
from .handler import Handler
from .request_state import CancelSource, InFlight, RequestContext, current_request

log = logging.getLogger(__name__)

_CANCELLED = (asyncio.CancelledError, RequestCancelled, TimeoutError, asyncio.TimeoutError)
"""Outcomes answered as cancellation (`asyncio.TimeoutError` is `TimeoutError` from 3.11 only)."""


_EAGER = sys.version_info >= (3, 12)
"""Whether tasks can start eagerly (Python 3.12+): without it, no need to ask `may_start_now`."""

if sys.version_info >= (3, 12):

    def _start_eagerly(coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """A task that runs its first step now, as its own task (Python 3.12+ eager start)."""
        return asyncio.Task(coro, loop=asyncio.get_running_loop(), name=name, eager_start=True)

else:

    def _start_eagerly(coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Before Python 3.12 there is no eager start: a task that starts next turn."""
        return _start(coro, name)


def _start(coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
    """A handler's task, named after its method. Named as it is made: uvloop's `create_task`
    names it after, so every task's default name ("Task-41") would be formatted first (2 % of
    a WebSocket round trip's instructions). Through the loop's task factory when one is set."""
    loop = asyncio.get_running_loop()
    if loop.get_task_factory() is None:
        return asyncio.Task(coro, loop=loop, name=name)
    return loop.create_task(coro, name=name)


class Inbound(Protocol):
    """What the incoming table needs from its connection."""

    @property
    def dialect(self) -> CancelDialect: ...

    @property
    def closing(self) -> bool: ...

    def write_answer(self, frame: dict[str, Any]) -> None: ...

    def writing_paused(self) -> bool: ...

    async def drain(self) -> None: ...


class IncomingRequests:
    """The peer's requests being handled, by id, and the tasks handling them."""

    def __init__(
        self,
        out: Inbound,
        handler: Handler | None,
        context: Callable[[InFlight], RequestContext],
        *,
        max_concurrent: int | None,
        send_tracebacks: bool,
        on_answered: Callable[[], None],
        may_start_now: Callable[[], bool] = lambda: True,
    ) -> None:
        self._out = out
        # Whether a request's handler may run its first step at once (Python 3.12+): not while a
        # notification read before it still waits, as that one is handled first.
        self._may_start_now = may_start_now
        self._handler = handler
        self._context = context
        self._slots = asyncio.Semaphore(max_concurrent) if max_concurrent else None
        self._send_tracebacks = send_tracebacks
        self._on_answered = on_answered  # the connection's flow control: room was made
        self._in_flight: dict[RequestId, InFlight] = {}
        self.in_flight: Mapping[RequestId, InFlight] = self._in_flight
        """The requests in flight, by id (read only: the connection counts them)."""

    def __len__(self) -> int:
        return len(self._in_flight)

    def running(self) -> set[asyncio.Task[Any]]:
        """The tasks of the handlers not done yet."""
        return {
            entry.task
            for entry in self._in_flight.values()
            if entry.task is not None and not entry.task.done()
        }

    # -- starting ----------------------------------------------------------------------------

    def on_request(self, frame: Request) -> None:
        """Start handling a request, or answer it at once when it cannot be handled."""
        if frame.method.startswith("$/") or self._handler is None:
            # LSP: "If a server or client receives a request starting with '$/' it must error the
            # request with error code `MethodNotFound`"; the TS SDK does so for `$/cancel_request`.
            not_found = MethodNotFound(data={"method": frame.method})
            self._out.write_answer(error_frame(frame.id, not_found.to_wire()))
            return
        if frame.id in self._in_flight:
            reason = f"request id {frame.id!r} is already in use by a request in flight"
            self._out.write_answer(error_frame(frame.id, invalid_request_error(reason)))
            return
        if self._out.closing:  # shutting down: internal cancellation, before any handler runs
            self._out.write_answer(error_frame(frame.id, cancelled_error(frame.id)))
            return
        entry = InFlight(frame.id, frame.method, frame.params)
        self._in_flight[frame.id] = entry
        if _EAGER and self._may_start_now():
            # The handler runs until it first waits right here, in its own task (so
            # `current_task()`, `asyncio.timeout` and cancellation are its own): a handler that
            # does not wait is answered in the event-loop turn its request was read in.
            task = _start_eagerly(self._run(entry), entry.method)
            if not task.done():  # done: answered already, and the entry needs no task
                entry.task = task
        else:
            entry.task = _start(self._run(entry), entry.method)

    async def _run(self, entry: InFlight) -> None:
        """Run the handler and answer from its outcome, inside its task (no extra loop turn)."""
        handler = self._handler
        assert handler is not None
        entry.started = True
        current_request.set(entry)  # this task's nested requests are the entry's children
        context = self._context(entry)
        result: Any = None
        error: BaseException | None = None
        try:
            if self._slots is None:
                result = await handler.handle_request(entry.method, entry.params, context)
            else:
                async with self._slots:
                    result = await handler.handle_request(entry.method, entry.params, context)
        except (Exception, asyncio.CancelledError) as failure:  # every outcome is answered
            error = failure
        if self._out.writing_paused() and not self._out.closing:
            # Flow control: while the peer does not read our output, an answer waits here and its
            # request stays in flight, so reading stops at `max_queued` of them; our reading never
            # waits on our writing (two peers that both did would wait on each other forever).
            entry.finished = True
            # The peer gone, or we close: the answer is still this outcome.
            with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
                await self._out.drain()
        self._answer(entry, result, error)
        # The task's context holds the entry (`current_request`) and the entry its task: a cycle
        # only the garbage collector would free, one per request. Answered, the entry needs no
        # task (nothing cancels it any more), so both go as soon as the task is done.
        entry.task = None

    # -- cancelling --------------------------------------------------------------------------

    def on_peer_cancel(self, params: Any) -> None:
        """`$/cancel_request` (or the dialect's equivalent) received.

        "Unknown, finished or malformed ids are ignored silently"; the notification is never
        answered. A request whose handler already finished keeps its normal answer ("Send the normal
        response (not a cancellation error)", ACP request-cancellation RFD).
        """
        dialect = self._out.dialect
        request_id = dialect.cancelled_id(params)
        reason = dialect.reason(params)
        if reason is not None:
            log.info("the peer cancelled request %r: %s", request_id, reason)
        entry = self._in_flight.get(request_id) if request_id is not None else None
        if entry is not None and entry.method not in dialect.uncancellable:
            self.cancel(entry.id, CancelSource.PEER)

    def cancel(self, request_id: RequestId, source: CancelSource) -> bool:
        """Cancel the handler of `request_id` as if `source` asked for it. False when there is
        nothing left to cancel (unknown or answered id, or already cancelled)."""
        entry = self._in_flight.get(request_id)
        if entry is None or entry.cancel_source is not None or entry.finished:
            return False
        if entry.task is None or entry.task.done():
            return False
        self._cancel(entry, source)
        return True

    async def cancel_all(self, timeout: float) -> None:
        """Shutdown: cancel every running handler and wait up to `timeout` for them to answer."""
        handlers = []
        for entry in list(self._in_flight.values()):
            if entry.task is not None and not entry.task.done():
                if entry.finished:
                    entry.task.cancel()  # only its wait to be written: it answers its outcome
                else:
                    self._cancel(entry, CancelSource.SHUTDOWN)
                handlers.append(entry.task)
        if handlers:
            _, stuck = await asyncio.wait(handlers, timeout=timeout)
            if stuck:
                log.warning("%d handlers ignored cancellation at shutdown", len(stuck))

    def _cancel(self, entry: InFlight, source: CancelSource) -> None:
        """Cancel a handler's scope: its pending children first, then its task."""
        entry.cancel_source = source
        if entry.cancel_event is not None:
            entry.cancel_event.set()
        cancel_children(entry)
        if entry.task is not None:
            entry.task.cancel()
            if not entry.started:
                # Cancelled before its first step, the task never runs `_run`: no handler will
                # answer, so answer here (-32800, or nothing in MCP).
                self._answer(entry, None, asyncio.CancelledError())

    # -- answering ---------------------------------------------------------------------------

    def _answer(self, entry: InFlight, result: Any, error: BaseException | None) -> None:
        """Answer an incoming request exactly once, from its handler's outcome."""
        if self._in_flight.get(entry.id) is not entry:
            return  # already answered
        del self._in_flight[entry.id]
        self._on_answered()
        dialect = self._out.dialect
        if error is None:
            frame = result_frame(entry.id, result)
        elif isinstance(error, _CANCELLED) or (
            entry.cancel_source is not None and not isinstance(error, RpcError)
        ):
            # Cancelled by the peer or at shutdown; internal cancellation (a `RequestCancelled`
            # raised inside, "its timeout"); or a handler that failed while being cancelled:
            # "Ensure consistent behavior regardless of cancellation source".
            if entry.cancel_source is None:
                entry.cancel_source = CancelSource.INTERNAL
            given = error if isinstance(error, RequestCancelled) else None
            cancelled = cancelled_error(entry.id, given)
            if entry.cancel_source is not CancelSource.PEER and dialect.self_cancel:
                cancelled["code"], cancelled["message"] = dialect.self_cancel
            frame = error_frame(entry.id, cancelled)
        else:
            if isinstance(error, ConnectionClosed):
                # The peer left while the handler waited on it (half-close): one line, no trace.
                log.warning("handler of %s stopped: %s", entry.method, error)
            elif not isinstance(error, RpcError):
                log.error("handler of %s crashed", entry.method, exc_info=error)
            failure = error_for_exception(error, include_traceback=self._send_tracebacks)
            frame = error_frame(entry.id, failure)
        if entry.cancel_source is not None:
            cancel_children(entry)  # children are cancelled before the parent is answered
            if entry.cancel_source is CancelSource.PEER and not dialect.answers_cancelled:
                return  # MCP: "Not send a response for the cancelled request"
        self._out.write_answer(frame)


def cancel_children(entry: InFlight) -> None:
    """Cancel every pending child: "Propagate cancellation to any nested/child requests"."""
    for child in list(entry.children):
        child.table.cancel_child(child)
