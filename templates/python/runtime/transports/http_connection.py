"""One connection of the HTTP server: the `Transport` its ACP `Connection` runs on.

Layer: transport. The RFD's "Connection { connection_id, sessions, get_stream, to_agent_tx,
from_agent_rx }": what the client POSTs (or sends over its WebSocket) waits in an `Inbox` for the
connection's `read()`; what the connection writes is routed, one message at a time, to the
`Outbox` of the stream the RFD names (`http_routing`): the connection-scoped stream, a
session-scoped stream, or, over a WebSocket, the socket ("All messages are WebSocket text frames
containing JSON-RPC"). The `Connection` above is the one stdio uses, so ids, cancellation
(`$/cancel_request`, the cascade) and flow control behave exactly as there.

Sessions belong to one connection at a time (`SessionOwners`): a session handed out on, or named
by, a connection is that connection's until it ends; another connection naming it is answered
404, so no stream and no request crosses connections.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from ..errors import ConnectionClosed
from ..json_codec import decode
from .http_policy import HttpServerOptions
from .http_routing import (
    Refused,
    Route,
    answer_route,
    client_message_route,
    id_key,
    is_response,
    params_session,
    result_session,
)
from .queues import Backlog, Inbox, Outbox
from .transport import MessageSink

log = logging.getLogger(__name__)

DIRECT = "acp.websocket.direct"
"""The ASGI scope extension of an ASGI server's WebSocket that hands messages straight over
(`{"socket": DirectWebSocket}`; `uvicorn_ws.AcpWebSocket`)."""


class DirectWebSocket(Protocol):
    """A WebSocket the server's connection reads and writes without ASGI events."""

    def attach(self, receiver: Callable[[bytes], None]) -> None: ...
    def pause_reading(self) -> None: ...
    def resume_reading(self) -> None: ...
    def send_texts(self, payloads: list[bytes]) -> bool: ...
    def send_text(self, payload: bytes) -> bool: ...
    def writing_paused(self) -> bool: ...
    async def writable_again(self) -> None: ...


class SessionOwners:
    """Which connection each live session belongs to (shared by a server's connections)."""

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}

    def claim(self, session: str, connection_id: str) -> bool:
        """Make `session` this connection's, unless it is another's (False)."""
        return self._owners.setdefault(session, connection_id) == connection_id

    def owner(self, session: str) -> str | None:
        return self._owners.get(session)

    def release(self, sessions: set[str], connection_id: str) -> None:
        for session in sessions:
            if self._owners.get(session) == connection_id:
                del self._owners[session]


class HttpConnection:
    """The transport of one ACP connection served over HTTP (SSE streams) or a WebSocket."""

    def __init__(
        self,
        connection_id: str,
        options: HttpServerOptions,
        owners: SessionOwners,
        *,
        websocket: bool,
        on_close: Callable[[HttpConnection], None],
    ) -> None:
        self.id = connection_id
        self.websocket = websocket
        self._options = options
        self._owners = owners
        self._on_close = on_close
        self._inbox = Inbox(options.max_buffered_bytes)
        self._backlog = Backlog()
        self.stream = Outbox(self._backlog)
        """The connection-scoped stream; over a WebSocket, every message."""
        self._session_streams: dict[str, Outbox] = {}
        self.sessions: set[str] = set()
        self._answer_routes: dict[str, Route] = {}  # the client's requests: where the answer goes
        self._client_routes: dict[str, Route] = {}  # our requests: the session of the answer
        self._initialize: tuple[str, asyncio.Future[bytes]] | None = None
        self._closed = False
        self._loop = asyncio.get_running_loop()
        self.last_active = self._loop.time()
        self._sink: MessageSink | None = None  # push (WebSocket): the receiver's
        self._held: asyncio.Future[None] | None = None  # push: reading paused until done
        self._direct: DirectWebSocket | None = None  # the socket, when it takes our frames

    # -- the Transport protocol (the Connection's side) --------------------------------------

    async def read(self) -> bytes:
        return await self._inbox.read()

    def deliver_messages_to(self, sink: MessageSink) -> bool:
        """Over a WebSocket, push (a `MessageTransport`): each message the server's receive
        loop takes goes to `sink` in that loop's turn, not through `read()` and a reading task
        (one task switch less per message read). False for Streamable HTTP, whose POSTs each
        come in a request of their own."""
        if not self.websocket or self._sink is not None or self._inbox.taken:
            return False
        self._sink = sink
        waiting = self._inbox.take_all()
        if waiting:  # lines, each a whole message
            sink([line for line in waiting.split(b"\n") if line])
        if self._inbox.ended:
            sink([])
        return True

    def deliver_to(self, sink: Callable[[bytes], None]) -> bool:
        """Push (a `PushTransport`), as `deliver_messages_to`, each message an NDJSON line
        (`b""` at the end)."""

        def as_lines(messages: list[bytes]) -> None:
            sink(b"".join([message + b"\n" for message in messages]) if messages else b"")

        return self.deliver_messages_to(as_lines)

    def pause_reading(self) -> None:
        """Push flow control: the receive loop takes no message until `resume_reading()` (the
        ASGI server then stops reading the socket: TCP makes the client wait)."""
        if self._direct is not None:
            self._direct.pause_reading()
        elif self._held is None:
            self._held = self._loop.create_future()

    def resume_reading(self) -> None:
        if self._direct is not None:
            self._direct.resume_reading()
        held, self._held = self._held, None
        if held is not None and not held.done():
            held.set_result(None)

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._closed:
            raise ConnectionClosed("the HTTP connection is closed")
        if self._direct is not None:  # a message per frame, all in one write (dropped once
            # the socket is closing, as the ASGI path drops what it can no longer send)
            self._direct.send_texts([line for line in data.split(b"\n") if line])
            return
        for line in data.split(b"\n"):
            if line:
                self._route_out(line)

    def write_message(self, data: bytes) -> None:
        """One message (a `MessageTransport`): a text frame, or to the stream it belongs to."""
        if self._closed:
            raise ConnectionClosed("the HTTP connection is closed")
        if self._direct is not None:
            self._direct.send_text(data)
        else:
            self._route_out(data)

    def writing_paused(self) -> bool:
        return (
            self._closed
            or self._backlog.size > self._options.max_buffered_bytes
            or (self._direct is not None and self._direct.writing_paused())
        )

    async def drain(self) -> None:
        """Wait while the client has more than `max_buffered_bytes` to read (a `DIRECT` socket:
        while its buffer is over its high-water mark); a client that reads nothing for
        `output_stall_timeout` seconds is gone (the connection ends)."""
        while self.writing_paused() and not self._closed:
            if not await self._progress(self._options.output_stall_timeout):
                log.warning(
                    "connection %s: the client read nothing for %.0f s; ending it",
                    self.id[:8],
                    self._options.output_stall_timeout,
                )
                self.end_input()
                raise ConnectionClosed("the client stopped reading")

    async def _progress(self, timeout: float) -> bool:
        """Wait until the client has taken some of our messages; False after `timeout` s."""
        direct = self._direct
        if direct is None or not direct.writing_paused():
            return await self._backlog.progress(timeout)
        try:
            await asyncio.wait_for(direct.writable_again(), timeout)
        except asyncio.TimeoutError:  # `TimeoutError` itself only from Python 3.11
            return False
        return True

    async def close(self) -> None:
        """The Connection is done: end every stream (after what is queued) and free the
        sessions."""
        if self._closed:
            return
        self._closed = True
        self._inbox.end()
        self.stream.finish()
        for outbox in self._session_streams.values():
            outbox.finish()
        self._owners.release(self.sessions, self.id)
        if self._initialize is not None and not self._initialize[1].done():
            self._initialize[1].cancel()
        self._on_close(self)

    # -- the server's side -------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def touch(self) -> None:
        self.last_active = self._loop.time()

    def idle(self) -> bool:
        """Nobody reads any stream of this connection."""
        return not self.stream.has_receiver and not any(
            s.has_receiver for s in self._session_streams.values()
        )

    def end_input(self) -> None:
        """The client is gone (DELETE, idle, a closed WebSocket): the Connection sees the end of
        its input and closes as after EOF on stdio (pending calls fail at once)."""
        if self._inbox.ended:
            return
        self._inbox.end()
        if self._sink is not None:
            self._sink([])
        self.resume_reading()

    def expect_initialize(self, message_id: Any) -> asyncio.Future[bytes]:
        """The answer to `initialize` (id `message_id`), which goes in the POST's response."""
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        key = id_key(message_id)
        assert key is not None
        self._initialize = (key, future)
        return future

    def go_direct(self, socket: DirectWebSocket, receiver: Callable[[bytes], None]) -> None:
        """Over a WebSocket that offers it (`DIRECT`): each text message goes to `receiver` in
        the callback that read it, and what the connection writes goes out as frames at once,
        neither through ASGI events nor the stream's sending task."""
        self._direct = socket
        socket.attach(receiver)

    def put(self, message: bytes) -> bool:
        """A message of the client (a POST's, a WebSocket's) as one line (`ndjson_line`), no
        newline; False past the buffered bytes."""
        self.last_active = self._loop.time()
        sink = self._sink
        if sink is None:
            return self._inbox.put(message + b"\n")
        if not self._inbox.ended:
            sink([message])
        return True

    @property
    def reading_held(self) -> bool:
        return self._held is not None

    async def reading_allowed(self) -> None:
        """Return once the connection takes messages (push flow control)."""
        while (held := self._held) is not None:
            await held

    def accept(self, message: dict[str, Any], line: bytes, header_session: str | None) -> None:
        """A POSTed message for the agent; `Refused` (400, 404, 429) when it cannot be taken."""
        self.touch()
        key = id_key(message.get("id"))
        if is_response(message):
            if key is not None and key in self._client_routes:
                route = self._client_routes[key]
                if route is not None and header_session != route:
                    raise Refused(400, "Acp-Session-Id does not match the request answered")
                del self._client_routes[key]
        else:
            route = client_message_route(message, header_session)
            if route is not None:
                self.claim(route)
            if key is not None and "id" in message:
                self._answer_routes[key] = answer_route(message, route)
        if not self._inbox.put(line + b"\n"):
            if key is not None:
                self._answer_routes.pop(key, None)
            raise Refused(429, "Too many messages waiting for the agent")

    def claim(self, session: str) -> None:
        """Make `session` this connection's: `Refused` 404 when it is another connection's, 429
        past `max_sessions`."""
        if session in self.sessions:
            return
        if len(self.sessions) >= self._options.max_sessions:
            raise Refused(429, "Too many sessions on this connection")
        if not self._owners.claim(session, self.id):
            raise Refused(404, "Unknown Acp-Session-Id")
        self.sessions.add(session)

    def session_stream(self, session: str) -> Outbox:
        """The session-scoped stream of a session of this connection (made on first use)."""
        outbox = self._session_streams.get(session)
        if outbox is None:
            outbox = self._session_streams[session] = Outbox(self._backlog)
            if self._closed:
                outbox.finish()
        return outbox

    # -- routing the agent's messages --------------------------------------------------------

    def _route_out(self, line: bytes) -> None:
        if self.websocket:
            # One stream carries everything, and nobody can open a session stream of a
            # WebSocket connection: there is nothing to route (or to read the line for).
            self.stream.put(line)
            return
        try:
            message = decode(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self.stream.put(line)
            return
        key = id_key(message.get("id"))
        route: Route = None
        if is_response(message):
            initialize = self._initialize
            if initialize is not None and key == initialize[0]:
                self._initialize = None
                if not initialize[1].done():
                    initialize[1].set_result(line)
                return
            if key is not None:
                route = self._answer_routes.pop(key, None)
            handed_out = result_session(message)
            if handed_out is not None:
                self._adopt(handed_out)
        else:
            route = params_session(message)
            if route is not None and not self._adopt(route):
                route = None
            if key is not None and "id" in message:
                self._client_routes[key] = route
        if route is None:
            self.stream.put(line)
        else:
            self.session_stream(route).put(line)

    def _adopt(self, session: str) -> bool:
        """A session the agent names on this connection becomes its own, if it can."""
        try:
            self.claim(session)
        except Refused as refused:
            log.warning("connection %s: session not routed apart: %s", self.id[:8], refused)
            return False
        return True
