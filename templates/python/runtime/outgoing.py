"""Our outgoing requests (dispatcher layer): ids, the pending table, and cancelling them.

`OutgoingRequests` sends a request, matches its answer by id, and cancels it in the connection's
dialect: ambiently (the awaiting task is cancelled), gracefully (`CancelSignal`), by id
(`cancel_request`), or as a child of a cancelled incoming request (`cancel_child`). It reaches the
wire only through the small `Outbound` protocol the connection implements.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from .cancellation import CancelDialect, CancelSignal
from .errors import ConnectionClosed, RequestCancelled, RpcError
from .frames import Response, notification_frame, request_frame
from .request_state import DEFAULT_OPTIONS, InFlight, Pending, RequestOptions, current_request
from .trace_context import carry_trace_context
from .transports.transport import exchange_batch

log = logging.getLogger(__name__)


class Outbound(Protocol):
    """What the outgoing table needs from its connection."""

    @property
    def dialect(self) -> CancelDialect: ...

    @property
    def closing(self) -> bool: ...

    def write_frame(self, frame: dict[str, Any], *, batch: int = 0) -> None: ...

    def writing_paused(self) -> bool: ...

    async def drain(self) -> None: ...


class OutgoingRequests:
    """The requests we sent and are still waiting for, by id (our ids are integers from 1)."""

    def __init__(self, out: Outbound, cascade_wait: float) -> None:
        self._out = out
        self._cascade_wait = cascade_wait
        self._next_id = 1
        self._pending: dict[int, Pending] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def on_response(self, frame: Response) -> None:
        """Hand an answer to its caller; an answer to nothing pending is dropped."""
        entry = self._pending.pop(frame.id, None) if type(frame.id) is int else None
        if entry is None:
            if frame.id is None and frame.error is not None:
                log.warning("the peer reported an error: %r", frame.error)
            else:
                log.debug("dropped a response to unknown request %r", frame.id)
            return
        if entry.abandoned or entry.future.done():
            return  # the caller stopped waiting: drop the late answer silently
        if frame.error is not None:
            entry.future.set_exception(RpcError.from_wire(frame.error))
        else:
            entry.future.set_result(frame.result)

    def fail(self, request_id: Any, error: Exception) -> None:
        """Fail the caller of `request_id` (an answer we could not read)."""
        entry = self._pending.pop(request_id, None) if type(request_id) is int else None
        if entry is not None and not entry.future.done():
            entry.future.set_exception(error)

    def fail_all(self, reason: ConnectionClosed) -> None:
        pending, self._pending = self._pending, {}
        for entry in pending.values():
            if not entry.abandoned and not entry.future.done():
                entry.future.set_exception(ConnectionClosed(str(reason)))

    async def request(
        self,
        method: str,
        params: Any = None,
        options: RequestOptions = DEFAULT_OPTIONS,
        parent: InFlight | None = None,
    ) -> Any:
        """Send a request and return its result (passed through `options.parse` when given), or
        raise the peer's error as `RpcError`.

        Ambient cancellation: if the awaiting task is cancelled (`task.cancel()`, `asyncio.timeout`,
        `wait_for`), the dialect's cancel notification is sent once, the id is kept so the late
        answer is dropped silently, and `CancelledError` propagates. Graceful cancellation: see
        `CancelSignal` (`options.cancel`). Made from inside a handler (`parent`, else the one this
        task handles), the request is a child of the one being handled and is cancelled with it,
        unless `options.cascade` is False; it also carries that request's W3C trace context
        (`trace_context`).
        """
        cancel, cascade, parse = options
        if self._out.closing:
            raise ConnectionClosed("the connection is closed")
        if parent is None:
            parent = current_request.get()
        if parent is not None:
            handled = parent.params
            if type(handled) is dict and "_meta" in handled:  # (most requests carry no trace)
                params = carry_trace_context(params, handled)
        scope = parent if cascade else None  # the parent whose cancellation reaches this one
        if cancel is not None and cancel.cancelled:
            raise RequestCancelled("Request cancelled before it was sent", {"sent": False})
        if scope is not None and scope.cancel_source is not None:
            raise RequestCancelled("The parent request was cancelled", {"sent": False})
        request_id = self._next_id
        self._next_id = request_id + 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entry = Pending(self, request_id, method, future, parent, cascade)
        # With others pending (a worker pool), the next requests likely follow in this turn.
        pending = len(self._pending)
        self._out.write_frame(
            request_frame(request_id, method, params),
            batch=exchange_batch(pending) if pending else 0,
        )
        self._pending[request_id] = entry
        if scope is not None:
            scope.children.add(entry)
        on_cancel: Callable[[], None] | None = None
        if cancel is not None:
            on_cancel = partial(self.cancel_child, entry, cancel)
            cancel.subscribe(on_cancel)
        try:
            if self._out.writing_paused():  # waiting costs coroutines; most requests need none
                await self._out.drain()
            result = await future
            return result if parse is None else parse(result)
        except asyncio.CancelledError:
            if scope is not None and scope.cancel_source is not None:
                await self._await_cancelled_child(entry)
            self._abandon(entry)
            raise
        finally:
            if on_cancel is not None and cancel is not None:
                cancel.unsubscribe(on_cancel)
            if scope is not None:
                scope.children.discard(entry)

    async def _await_cancelled_child(self, entry: Pending) -> None:
        """The parent handler was cancelled while awaiting this child: cancel the child and give
        the peer up to `cascade_wait` seconds to answer it, so the answers go out in the order of
        the spec's diagram (nested requests answered `-32800`, then the parent)."""
        if self._pending.get(entry.id) is not entry or not self._out.dialect.answers_cancelled:
            return
        self._send_cancel(entry, None)
        # The task's cancellation cancelled the future it awaited; wait on a fresh one.
        entry.future = asyncio.get_running_loop().create_future()
        await asyncio.wait((entry.future,), timeout=self._cascade_wait)
        if entry.future.done() and not entry.future.cancelled():
            entry.future.exception()  # retrieved: the caller is cancelled, the answer is moot

    def _abandon(self, entry: Pending) -> None:
        """The caller stopped waiting (its task was cancelled or timed out)."""
        if self._pending.get(entry.id) is not entry:
            return  # already answered, or the connection is gone
        entry.abandoned = True
        parent = entry.parent
        if not entry.cascade and parent is not None and parent.cancel_source is not None:
            return  # opted out of the cascade: the peer's work goes on, its answer is dropped
        self._send_cancel(entry, None)
        if (
            not self._out.dialect.answers_cancelled
            and entry.method not in self._out.dialect.uncancellable
        ):
            del self._pending[entry.id]  # "SHOULD NOT send any response": nothing left to match

    def cancel_request(self, request_id: int, reason: str | None = None) -> bool:
        """Send the dialect's cancel (ACP `$/cancel_request`) for our pending request `request_id`;
        its caller keeps waiting for the peer's answer (graceful). False when none is pending.
        A request's id is its `CancelSignal`-free handle: prefer
        `request(..., RequestOptions(cancel=signal))`."""
        entry = self._pending.get(request_id)
        if entry is None:
            return False
        signal = CancelSignal()
        signal.cancel(reason)
        self.cancel_child(entry, signal)
        return True

    def cancel_child(self, entry: Pending, signal: CancelSignal | None = None) -> None:
        """Graceful cancellation: send the cancel notification, keep waiting for the answer.

        "The calling side MAY implement graceful cancellation processing by waiting for the
        response from the remote side" (ACP `cancellation.mdx`). A dialect whose receiver does not
        answer (MCP) fails the caller with a local `RequestCancelled` instead.
        """
        if self._pending.get(entry.id) is not entry:
            return
        reason = signal.reason if signal is not None else None
        self._send_cancel(entry, reason)
        if self._out.dialect.answers_cancelled or entry.method in self._out.dialect.uncancellable:
            return
        del self._pending[entry.id]
        if not entry.future.done():
            data = {"requestId": entry.id, "sent": True, "reason": reason}
            entry.future.set_exception(RequestCancelled(data=data))

    def _send_cancel(self, entry: Pending, reason: str | None) -> None:
        """Write the dialect's cancel notification for `entry`, at most once."""
        if entry.cancel_sent:
            return
        entry.cancel_sent = True
        if entry.method in self._out.dialect.uncancellable:
            # MCP: "The `initialize` request MUST NOT be cancelled by clients".
            log.debug(
                "%s is never cancelled in the %s dialect", entry.method, self._out.dialect.name
            )
            return
        params = self._out.dialect.notification_params(entry.id, reason)
        with contextlib.suppress(ConnectionClosed):
            self._out.write_frame(notification_frame(self._out.dialect.method, params))
