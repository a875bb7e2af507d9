# Copied by acp-codegen from templates/python/runtime/request_state.py. Do not edit here:
# edit the source, then run `make generate`.

"""Per-request state: one small slotted record per outgoing (pending) and incoming (in-flight)
request, and the context a handler receives.

Layer: dispatcher.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from .frames import RequestId

if TYPE_CHECKING:
    from .cancellation import CancelSignal
    from .connection import Connection
    from .outgoing import OutgoingRequests


class CancelSource(str, enum.Enum):
    """Why an incoming request's handler was cancelled; a `str`, so `ctx.cancel_source == "peer"`
    works as well as `is CancelSource.PEER` (`str, Enum` rather than 3.11's `StrEnum`)."""

    def __str__(self) -> str:
        return self.value

    PEER = "peer"
    """The peer sent the dialect's cancel notification."""
    INTERNAL = "internal"
    """The handler gave up on its own (its timeout, a `RequestCancelled` raised inside)."""
    SHUTDOWN = "shutdown"
    """The connection is closing."""
    SESSION = "session"
    """A feature-level cancel ended the session's turn (`session/cancel`, see `session_turns`)."""


class RequestOptions(NamedTuple):
    """How one request of ours is sent, as one value (TypeScript's `RequestOptions`), passed
    unchanged through every layer from a typed peer to the pending table:
    `conn.request("_x/y", params, RequestOptions(cancel=signal))`."""

    cancel: CancelSignal | None = None
    """Graceful cancellation: its `cancel()` sends the dialect's cancel and the caller keeps
    waiting for the peer's answer (a result, or -32800)."""
    cascade: bool = True
    """Made while handling a request, it is that request's child, cancelled with it; False: it
    outlives it."""
    parse: Callable[[Any], Any] | None = None
    """What the result goes through before it is returned (a typed peer's result type)."""


DEFAULT_OPTIONS = RequestOptions()
"""A request without options."""


def with_keywords(
    options: RequestOptions,
    cancel: CancelSignal | None,
    cascade: bool | None,
    parse: Callable[[Any], Any] | None,
) -> RequestOptions:
    """`options` with the keywords a caller gave (`request(..., cancel=signal)`, the form Python
    users expect) in place of its own; a keyword left out (None) keeps the option's value."""
    if cancel is None and cascade is None and parse is None:
        return options
    return RequestOptions(
        options.cancel if cancel is None else cancel,
        options.cascade if cascade is None else cascade,
        options.parse if parse is None else parse,
    )


@dataclass(slots=True, eq=False)
class Pending:
    """An outgoing request waiting for its answer."""

    table: OutgoingRequests
    """The outgoing table of the connection that sent it (a child may be another connection's)."""
    id: int
    method: str
    future: asyncio.Future[Any]
    parent: InFlight | None
    """The incoming request whose handler made this one, if it cascades from it."""
    cascade: bool
    cancel_sent: bool = False
    abandoned: bool = False
    """The caller stopped waiting: the late answer is matched by id and dropped silently."""


@dataclass(slots=True, eq=False)
class InFlight:
    """An incoming request being handled."""

    id: RequestId
    method: str
    params: Any
    task: asyncio.Task[Any] | None = None
    started: bool = False
    """Whether the handler's task ran its first step (a task cancelled before it never does)."""
    finished: bool = False
    """The handler is done and its answer waits for the peer to read our output (flow control):
    a cancel now is for a finished request."""
    cancel_source: CancelSource | None = None
    cancel_event: asyncio.Event | None = None
    """Created on demand by `RequestContext.wait_cancelled`."""
    children: set[Pending] = field(default_factory=set)
    """Outgoing requests made while handling this one, still pending."""


current_request: ContextVar[InFlight | None] = ContextVar("acp_current_request", default=None)
"""The incoming request whose handler runs in this task: nested requests become its children."""


class RequestContext:
    """What a handler knows about the request it is answering, and its way back to the peer.

    Cancellation: with the default interrupt policy the handler's task is cancelled when the peer
    cancels the request; it may catch `asyncio.CancelledError`, send notifications and return a
    partial result ("MAY finish sending any pending notifications before responding"), or let it
    propagate to be answered `-32800`. `cancel_requested` and `wait_cancelled()` report the same
    state.
    """

    __slots__ = ("_entry", "connection")

    def __init__(self, connection: Connection, entry: InFlight):
        self.connection = connection
        self._entry = entry

    @property
    def request_id(self) -> RequestId:
        return self._entry.id

    @property
    def method(self) -> str:
        return self._entry.method

    @property
    def params(self) -> Any:
        """The request's raw params, as received."""
        return self._entry.params

    @property
    def cancel_requested(self) -> bool:
        return self._entry.cancel_source is not None

    @property
    def cancel_source(self) -> CancelSource | None:
        return self._entry.cancel_source

    async def wait_cancelled(self) -> None:
        """Return once cancellation of this request has been requested."""
        if self._entry.cancel_source is not None:
            return
        if self._entry.cancel_event is None:
            self._entry.cancel_event = asyncio.Event()
        await self._entry.cancel_event.wait()

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
        """Send a nested request (await the result); it is cancelled with this one unless
        `cascade=False`. The keywords, or one `options` value, say how (`RequestOptions`)."""
        if cancel is not None or cascade is not None or parse is not None:
            options = with_keywords(options, cancel, cascade, parse)
        return self.connection.request(method, params, options, parent=self._entry)

    def notify(self, method: str, params: Any = None) -> Coroutine[Any, Any, None]:
        """Send a notification (await it); it is written before this request's answer and carries
        this request's trace context."""
        return self.connection.notify(method, params, parent=self._entry)
