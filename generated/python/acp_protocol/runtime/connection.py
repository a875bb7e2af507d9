# Copied by acp-codegen from templates/python/runtime/connection.py. Do not edit here:
# edit the source, then run `make generate`.

"""The JSON-RPC connection: routes frames, writes answers, and opens and closes.

Layer: dispatcher.

Layers: a `Transport` moves bytes; this `Connection` joins the dispatcher's parts: reading with
flow control (`Receiver`, handing it frames through the `FrameSink` protocol), our requests
(`OutgoingRequests`, through the `Outbound` protocol), the peer's requests (`IncomingRequests`:
the in-flight table, handler tasks, the cancel cascade and the one mapping from a handler's outcome
to a response, through `Inbound`) and the peer's notifications (`NotificationQueue`). The generated
typed layer sits on top and implements `Handler`. Nothing here knows an ACP method other than the
dialect's cancel notification.

Scheduling: each frame is decoded and routed as it is read (see `receiving`). Responses and
cancel notifications are handled at once; each incoming request gets a task (concurrent,
optionally bounded; started eagerly on Python 3.12+); incoming notifications go through one queue
to one worker, so they are handled in arrival order (a `session/update` stream is never
reordered). Every frame is written by one synchronous `write` of one whole message, so frames never
interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from . import malformed
from .block_watch import DEFAULT_BLOCKING_THRESHOLD, BlockWatch, unwatch, watch
from .cancellation import ACP, CancelDialect, CancelSignal
from .errors import ConnectionClosed
from .flow_control import Receiver
from .frames import (
    Invalid,
    Notification,
    Request,
    RequestId,
    Response,
    classify,
    error_frame,
    notification_frame,
)
from .handler import Handler
from .incoming import IncomingRequests
from .json_codec import decode, encode
from .notifications import NotificationQueue
from .outgoing import OutgoingRequests
from .request_state import (
    DEFAULT_OPTIONS,
    CancelSource,
    InFlight,
    RequestContext,
    RequestOptions,
    current_request,
    with_keywords,
)
from .trace_context import carry_trace_context
from .transports.framing import NDJSON, Framing
from .transports.transport import (
    DEFAULT_FRAME_LIMIT,
    STREAM,
    MessageTransport,
    OversizedFrame,
    Transport,
    exchange_batch,
)
from .wire_trace import WireTrace, open_trace

log = logging.getLogger(__name__)


class Connection:
    """One JSON-RPC 2.0 peer connection over newline-delimited JSON.

    Use it as an async context manager (or call `start()` and `close()`); `wait_closed()` returns
    when the peer is gone or `close()` finished.
    """

    def __init__(
        self,
        transport: Transport,
        handler: Handler | None = None,
        *,
        dialect: CancelDialect = ACP,
        max_concurrent_requests: int | None = None,
        max_queued: int = 10_000,
        frame_limit: int = DEFAULT_FRAME_LIMIT,
        framing: Framing = NDJSON,
        send_tracebacks: bool = False,
        shutdown_timeout: float = 5.0,
        cascade_wait: float = 1.0,
        eof_grace: float = 5.0,
        blocking_threshold: float | None = DEFAULT_BLOCKING_THRESHOLD,
    ):
        self.dialect = dialect
        self._transport = transport
        self._wrap = framing.wrap
        # A transport of whole messages (WebSocket) takes each frame as it is: no newline added
        # to be split off again (NDJSON framing; any other is bytes on any transport).
        self._write_message = (
            transport.write_message
            if framing is NDJSON and isinstance(transport, MessageTransport)
            else None
        )
        # Flow control: reading pauses while `max_queued` requests are in flight (this bounds the
        # handlers running at once too; an answer waiting for the peer to read our output keeps
        # its request in flight) or notifications queued, and resumes below half.
        self._receiver = Receiver(
            transport, framing.reader(transport.read, frame_limit), self, max_queued
        )
        self._shutdown_timeout = shutdown_timeout
        # Half-close: requests read before the peer's end of input are carried out for up to
        # this many seconds (a client that writes its requests and closes, `printf … | agent`).
        self._eof_grace = eof_grace
        self._outgoing = OutgoingRequests(self, cascade_wait)
        self._incoming = IncomingRequests(
            self,
            handler,
            partial(RequestContext, self),
            max_concurrent=max_concurrent_requests,
            send_tracebacks=send_tracebacks,
            on_answered=self._receiver.made_progress,
            may_start_now=self._no_notification_waits,
        )
        self._notifications: NotificationQueue | None = (
            None if handler is None else NotificationQueue(handler, self._receiver.made_progress)
        )
        # What `backlog` counts, read directly: it is asked after every read.
        self._in_flight = self._incoming.in_flight
        notifications = self._notifications
        self._queued_notifications = None if notifications is None else notifications.queue
        self._started = False
        self._notifier_task: asyncio.Task[None] | None = None
        self._unread_answers = 0  # written while the peer was not reading, not read yet
        self._unread_task: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = asyncio.Event()
        self._tracked: set[asyncio.Task[Any]] = set()
        # A handler holding the event loop longer than this is named in a warning (block_watch).
        self._blocking_threshold = blocking_threshold
        self._block_watch: BlockWatch | None = None
        # ACP_TRACE=FILE: every frame read and written is recorded (wire_trace), from `start`.
        self._trace: WireTrace | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start reading; idempotent."""
        if not self._started and not self._closing:
            self._started = True
            self._block_watch = watch(self._blocking_threshold)
            self._trace = open_trace()
            self._receiver.start()
            if self._notifications is not None:
                self._notifier_task = asyncio.create_task(
                    self._notifications.run(), name="jsonrpc-notifications"
                )

    async def __aenter__(self) -> Connection:
        self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        return self._closing

    @property
    def closing(self) -> bool:
        """Closed or closing: no new request is sent (`Outbound`)."""
        return self._closing

    @property
    def pending_count(self) -> int:
        """Outgoing requests still waiting for an answer (abandoned ones included)."""
        return len(self._outgoing)

    @property
    def in_flight_count(self) -> int:
        """Incoming requests not yet answered."""
        return len(self._incoming)

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        """Answer in-flight requests `-32800`, fail pending callers, close; idempotent."""
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        # The reader keeps running until the handlers are done: the answers to their cancelled
        # nested requests must still arrive.
        await self._shutdown(ConnectionClosed("the connection was closed"))

    def track(self, task: asyncio.Task[Any]) -> None:
        """Own a task that works for this connection outside a request's handler (a prompt's
        foreground work): cancelled and awaited at shutdown, like the handlers."""
        self._tracked.add(task)
        task.add_done_callback(self._tracked.discard)

    async def _shutdown(self, reason: ConnectionClosed) -> None:
        """Internal cancellation "on shutdown" of every handler, then release everything."""
        await self._incoming.cancel_all(self._shutdown_timeout)
        if self._tracked:
            for tracked in self._tracked:
                tracked.cancel()
            await asyncio.wait(set(self._tracked), timeout=self._shutdown_timeout)
        self._outgoing.fail_all(reason)
        await self._receiver.stop()
        for task in (self._notifier_task, self._unread_task):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        await self._transport.close()
        unwatch(self._block_watch)
        self._block_watch = None
        if self._trace is not None:
            self._trace.close()
        self._closed.set()

    # -- outgoing ----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        params: Any = None,
        options: RequestOptions = DEFAULT_OPTIONS,
        *,
        parent: InFlight | None = None,
        cancel: CancelSignal | None = None,
        cascade: bool | None = None,
        parse: Callable[[Any], Any] | None = None,
    ) -> Coroutine[Any, Any, Any]:
        """Send a request (await it) for its result, or the peer's error raised as `RpcError`; see
        `OutgoingRequests.request` for ambient, graceful (`cancel=signal`) and cascaded
        (`cascade=False` opts out) cancellation, and `parse` (what the result goes through).
        The keywords, or one `RequestOptions` value as `options`, say how; both forms work.
        `parent`: the incoming request it is a child of (default: the one this task handles)."""
        if cancel is not None or cascade is not None or parse is not None:
            options = with_keywords(options, cancel, cascade, parse)
        return self._outgoing.request(method, params, options, parent)

    def cancel_request(self, request_id: int, reason: str | None = None) -> bool:
        """Send the dialect's cancel (ACP `$/cancel_request`) for our pending request `request_id`;
        its caller keeps waiting for the peer's answer (graceful). False when none is pending."""
        return self._outgoing.cancel_request(request_id, reason)

    async def notify(
        self, method: str, params: Any = None, *, parent: InFlight | None = None
    ) -> None:
        """Send a notification (also while closing: a cancelled handler may flush updates). Sent
        while handling a request (`parent`, else the one this task handles), it carries that
        request's W3C trace context (`trace_context`)."""
        if parent is None:
            parent = current_request.get()
        if parent is not None:
            handled = parent.params
            if type(handled) is dict and "_meta" in handled:  # (most requests carry no trace)
                params = carry_trace_context(params, handled)
        self.write_frame(notification_frame(method, params), batch=STREAM)
        if self._transport.writing_paused():  # waiting costs two coroutines; most writes need none
            await self._transport.drain()

    async def drain(self) -> None:
        """Wait while our output is over the transport's high-water mark (`Outbound`)."""
        await self._transport.drain()

    def writing_paused(self) -> bool:
        """Whether our output is over the transport's high-water mark (`Inbound`)."""
        return self._transport.writing_paused()

    def write_frame(self, frame: dict[str, Any], *, batch: int = 0) -> None:
        """Write one frame (`Outbound`): one write of one whole message."""
        data = encode(frame)
        if self._write_message is not None:
            self._write_message(data)
        else:
            self._transport.write(self._wrap(data), batch=batch)
        if self._trace is not None:
            self._trace.outgoing(data)

    def write_answer(self, frame: dict[str, Any]) -> None:
        """Write a response (`Inbound`); one the peer can no longer receive is dropped."""
        try:
            data = encode(frame)
        except (TypeError, ValueError) as error:
            log.error("result of request %r is not JSON: %s", frame["id"], error)
            failure = {"code": -32603, "message": "Internal error", "data": {"details": str(error)}}
            data = encode(error_frame(frame["id"], failure))
        try:
            # While other requests are in flight, their answers likely follow in this event-loop
            # turn: they share writes (the first goes out at once, see `CoalescingWriter`).
            if self._write_message is not None:
                self._write_message(data)
            else:
                batch = exchange_batch(len(self._incoming))
                self._transport.write(self._wrap(data), batch=batch)
        except ConnectionClosed:
            log.debug("answer to request %r dropped: the connection is closed", frame["id"])
            return
        if self._trace is not None:
            self._trace.outgoing(data)
        if self._transport.writing_paused():
            # Flow control: an answer the peer has not read yet counts as work until it has (an
            # error to a malformed frame, say: a peer that floods them and reads nothing is
            # bounded too).
            self._unread_answers += 1
            if self._unread_task is None:
                self._unread_task = asyncio.get_running_loop().create_task(self._until_read())

    async def _until_read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._transport.drain()
        self._unread_answers = 0
        self._unread_task = None
        self._receiver.made_progress()

    # -- incoming ----------------------------------------------------------------------------

    def backlog(self) -> int:
        """Requests in flight (and answers not read yet) or notifications queued, whichever is
        more (`FrameSink`)."""
        in_flight = len(self._in_flight) + self._unread_answers
        queue = self._queued_notifications
        if queue is not None and len(queue) > in_flight:
            return len(queue)
        return in_flight

    def _no_notification_waits(self) -> bool:
        return self._notifications is None or not len(self._notifications)

    async def stream_ended(self) -> None:
        """The peer's stream ended, or reading it failed (`FrameSink`): close, unless closing."""
        if not self._closing:
            # The peer is gone: "every pending caller fails promptly".
            self._closing = True
            reason = ConnectionClosed("the peer closed the connection")
            self._outgoing.fail_all(reason)
            await self._deliver_queued_notifications()
            await self._carry_out_what_was_read()
            await self._shutdown(reason)

    async def _carry_out_what_was_read(self) -> None:
        """Half-close: the requests the peer sent before its end of input (and the work they
        started, such as a v2 prompt's) run on for up to `eof_grace` seconds and are answered;
        what is still running then is cancelled by the shutdown (`-32800`). A peer that stopped
        reading too ends this at our first write (EPIPE closes the connection)."""
        running = self._incoming.running() | self._tracked
        if running and self._eof_grace > 0:
            await asyncio.wait(running, timeout=self._eof_grace)

    async def _deliver_queued_notifications(self) -> None:
        """What the peer sent before it left is handled before the connection reports closed
        (within `shutdown_timeout`): its last `session/update`s are not lost."""
        queue = self._notifications
        if queue is not None and not await queue.drained(self._shutdown_timeout):
            log.warning("%d notifications not handled within the shutdown timeout", len(queue))

    def receive_line(self, line: bytes) -> None:
        """Decode and route one frame (`FrameSink`)."""
        try:
            message = decode(line)
        except ValueError as error:
            if not line.strip():
                return  # blank lines between frames are tolerated
            if self._trace is not None:
                self._trace.incoming(line, False)
            self.write_answer(malformed.parse_error_answer(line, error))
            return
        if self._trace is not None:
            self._trace.incoming(line, True)
        frame = classify(message)
        frame_type = type(frame)
        if frame_type is Notification:
            self._on_notification(frame)  # type: ignore[arg-type]
        elif frame_type is Response:
            self._outgoing.on_response(frame)  # type: ignore[arg-type]
        elif frame_type is Request:
            self._incoming.on_request(frame)  # type: ignore[arg-type]
        else:
            assert isinstance(frame, Invalid)
            answer = malformed.invalid_answer(frame)
            if answer is not None:
                self.write_answer(answer)

    def receive_oversized(self, frame: OversizedFrame) -> None:
        """A frame over the limit was dropped unread (`FrameSink`); see `malformed.oversized`."""
        if self._trace is not None:
            self._trace.dropped(frame.head, frame.size)
        outcome = malformed.oversized(frame, self._receiver.limit)
        if isinstance(outcome, dict):
            self.write_answer(outcome)
        elif outcome is not None:
            self._outgoing.fail(*outcome)

    def _on_notification(self, frame: Notification) -> None:
        if frame.method == self.dialect.method:
            self._incoming.on_peer_cancel(frame.params)
        elif self._notifications is not None:
            self._notifications.put(frame.method, frame.params)

    def cancel_incoming(self, request_id: RequestId, source: CancelSource) -> bool:
        """Cancel the handler of incoming request `request_id` as if `source` asked for it: its
        pending children first, then its task. False when there is nothing left to cancel (unknown
        or answered id, or already cancelled)."""
        return self._incoming.cancel(request_id, source)
