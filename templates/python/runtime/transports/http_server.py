"""The server of ACP's remote transport: an ASGI app serving one agent per connection at `/acp`.

Layer: transport. It needs no library: run it under any ASGI server (uvicorn, hypercorn).
The RFD "Streamable HTTP & WebSocket Transport", "Unified Endpoint Routing":

    GET /acp
      ├── Has Upgrade: websocket? → WebSocket handler
      └── No → SSE stream handler (400 no Acp-Connection-Id, 404 unknown, 404 unknown
          Acp-Session-Id; with Acp-Session-Id: the session-scoped stream, else the
          connection-scoped one)
    POST /acp
      ├── Initialize request (no Acp-Connection-Id)? → Create connection, return 200 with JSON
      ├── No Acp-Connection-Id? → 400;  Unknown Acp-Connection-Id? → 404
      ├── Session-scoped request missing Acp-Session-Id? → 400
      └── … → Forward to agent, return 202 Accepted
    DELETE /acp → Terminate the connection, 202 (400 without Acp-Connection-Id)

"POST `Content-Type` MUST be `application/json` (415 otherwise)", "GET `Accept` MUST include
`text/event-stream` (406 otherwise)", "Batch JSON-RPC requests return 501". Each connection is
its own ACP `Connection` (`connect(transport)`: an agent per connection, or one shared), on an
`HttpConnection` transport, kept in the server's `ConnectionTable` (`http_table`: opening, finding,
ending the idle ones). The checks of `http_policy` come first (403, 401), then the limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..json_codec import decode
from .framing import ndjson_line
from .http_connection import DIRECT, DirectWebSocket, HttpConnection
from .http_policy import HttpServerOptions
from .http_routing import (
    CONNECTION_ID,
    EVENT_STREAM,
    JSON,
    MAX_ID_LENGTH,
    SESSION_ID,
    Refused,
    id_key,
    is_response,
)
from .http_table import ConnectionTable
from .http_table import Served as Served  # re-exported: importable from here, as always
from .queues import Outbox
from .transport import LF, Transport

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_PARSE_ERROR = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
_NOT_A_MESSAGE = (
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request",'
    b'"data":{"details":"a JSON-RPC message is an object"}}}'
)


class AcpHttpServer:
    """An ASGI app: ACP over Streamable HTTP and WebSocket, one `connect(transport)` per
    connection. `await server.close()` (or the ASGI lifespan's shutdown) ends them all."""

    def __init__(
        self, connect: Callable[[Transport], Served], options: HttpServerOptions | None = None
    ) -> None:
        self.options = options or HttpServerOptions()
        self._table = ConnectionTable(connect, self.options)

    @property
    def connection_count(self) -> int:
        return len(self._table)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)

    async def close(self) -> None:
        """End every connection (its agent sees the client leave) and wait for them."""
        await self._table.close()

    # -- HTTP --------------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        try:
            self._check(scope, headers)
            method = scope["method"]
            if method == "POST":
                await self._post(headers, receive, send)
            elif method == "GET":
                await self._get(headers, receive, send)
            elif method == "DELETE":
                self._connection(headers).end_input()
                await _respond(send, 202)
            else:
                raise Refused(405, "Method Not Allowed")
        except Refused as refused:
            await _respond(send, refused.status, str(refused).encode(), _refusal_headers(refused))

    def _check(self, scope: Scope, headers: dict[str, str]) -> None:
        path = self.options.path
        if path is not None and scope.get("path", "").rstrip("/") != path.rstrip("/"):
            raise Refused(404, "Not Found")
        if not self.options.origin_allowed(headers.get("origin")):
            raise Refused(403, "Origin not allowed")
        if not self.options.authorized(headers.get("authorization")):
            raise Refused(401, "Unauthorized")

    def _connection(self, headers: dict[str, str]) -> HttpConnection:
        return self._table.find(headers.get(CONNECTION_ID))

    async def _post(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if headers.get("content-type", "").split(";")[0].strip().lower() != JSON:
            raise Refused(415, "Unsupported Media Type: POST application/json")
        body = await _read_body(headers, receive, self.options.frame_limit)
        try:
            message = decode(body)
        except ValueError:
            await _respond(send, 400, _PARSE_ERROR, [(b"content-type", JSON.encode())])
            return
        if isinstance(message, list):
            raise Refused(501, "JSON-RPC batches are not supported")
        if not isinstance(message, dict):
            await _respond(send, 400, _NOT_A_MESSAGE, [(b"content-type", JSON.encode())])
            return
        line = body if LF not in body else body.replace(b"\n", b" ")  # never re-encoded
        if message.get("method") == "initialize" and not is_response(message):
            if CONNECTION_ID in headers:
                raise Refused(
                    400, "initialize opens a connection: send it without Acp-Connection-Id"
                )
            answer, connection_id = await self._initialize(message, line)
            extra = [(b"content-type", JSON.encode()), (CONNECTION_ID.encode(), connection_id)]
            await _respond(send, 200, answer, extra)
            return
        connection = self._connection(headers)
        connection.accept(message, line, _session_header(headers))
        await _respond(send, 202)

    async def _initialize(self, message: dict[str, Any], line: bytes) -> tuple[bytes, bytes]:
        if id_key(message.get("id")) is None:
            raise Refused(400, "initialize needs a string or integer id")
        connection = self._table.open(websocket=False)
        answer = connection.expect_initialize(message["id"])
        connection.put(line)
        done, _ = await asyncio.wait({answer}, timeout=self.options.initialize_timeout)
        if not done:
            connection.end_input()
            raise Refused(504, "The agent did not answer initialize in time")
        if answer.cancelled():
            raise Refused(502, "The agent closed the connection before answering initialize")
        return answer.result(), connection.id.encode()

    async def _get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        if EVENT_STREAM not in headers.get("accept", ""):
            raise Refused(406, "Not Acceptable: GET Accept: text/event-stream")
        connection = self._connection(headers)
        session = _session_header(headers)
        if session is None:
            outbox = connection.stream
        else:
            connection.claim(session)
            outbox = connection.session_stream(session)
        if not outbox.acquire():
            raise Refused(409, "This stream already has a receiver")
        await self._stream_events(connection, outbox, receive, send)

    async def _stream_events(
        self, connection: HttpConnection, outbox: Outbox, receive: Receive, send: Send
    ) -> None:
        """One SSE event per message, all that is queued in one write; a comment after
        `keepalive` seconds of silence; the end when the connection ends."""
        released = False

        def leave(_: object = None) -> None:
            nonlocal released
            if not released:
                released = True
                outbox.release()

        watcher = asyncio.get_running_loop().create_task(_disconnected(receive))
        watcher.add_done_callback(leave)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            keepalive = self.options.keepalive
            while (items := await outbox.take(keepalive)) is not None:
                connection.touch()
                body = b"".join([b"data: " + item + b"\n\n" for item in items]) or b":\n\n"
                await send({"type": "http.response.body", "body": body, "more_body": True})
            if not released:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client left while we wrote (uvicorn's ClientDisconnected)
            pass
        finally:
            watcher.cancel()
            leave()
            connection.touch()

    # -- WebSocket ---------------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ "A new connection is created on upgrade. The `Acp-Connection-Id` is returned in the
        upgrade response headers"; "All messages are WebSocket text frames containing JSON-RPC.
        Binary frames are ignored. On disconnect, the server cleans up the connection"."""
        if (await receive())["type"] != "websocket.connect":
            return
        try:
            self._check(scope, _headers(scope))
            connection = self._table.open(websocket=True)
        except Refused as refused:
            await _deny_websocket(scope, send, refused)
            return
        connection.stream.acquire()
        accept = [(CONNECTION_ID.encode(), connection.id.encode())]
        await send({"type": "websocket.accept", "headers": accept})
        direct = scope.get("extensions", {}).get(DIRECT)
        if direct is not None:  # the rest comes as ASGI events: the client's close, its end
            connection.go_direct(direct["socket"], _receiver(connection, direct["socket"], send))
        writer = asyncio.get_running_loop().create_task(_send_frames(connection, send))
        try:
            while True:
                if connection.reading_held:
                    await connection.reading_allowed()
                if (event := await receive())["type"] != "websocket.receive":
                    break
                text = event.get("text")
                if text is None:
                    continue  # "Binary frames are ignored"
                line = ndjson_line(text.encode())
                if line is None:
                    connection.stream.put(_PARSE_ERROR)
                elif not connection.put(line):
                    log.warning("connection %s: too much input waiting; closing", connection.id[:8])
                    await send({"type": "websocket.close", "code": 1013})
                    break
        finally:
            connection.end_input()
            await writer

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


_SSE_HEADERS = [
    (b"content-type", EVENT_STREAM.encode()),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),  # nginx: pass events on as they come
]


async def _send_frames(connection: HttpConnection, send: Send) -> None:
    """The agent's messages to the WebSocket, one text frame each; a close frame at the end."""
    with contextlib.suppress(OSError, RuntimeError):  # the socket is gone
        while (items := await connection.stream.take()) is not None:
            for item in items:
                await send({"type": "websocket.send", "text": item.decode()})
        await send({"type": "websocket.close", "code": 1000})


def _receiver(
    connection: HttpConnection, socket: DirectWebSocket, send: Send
) -> Callable[[bytes], None]:
    """What a `DIRECT` socket calls with each text message: the receive loop's work."""
    closing: list[asyncio.Future[None]] = []

    def take(text: bytes) -> None:
        line = text if LF not in text else ndjson_line(text)
        if line is None:
            socket.send_texts([_PARSE_ERROR])
        elif not connection.put(line) and not closing:
            log.warning("connection %s: too much input waiting; closing", connection.id[:8])
            close = send({"type": "websocket.close", "code": 1013})
            closing.append(asyncio.ensure_future(close))

    return take


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _read_body(headers: dict[str, str], receive: Receive, limit: int) -> bytes:
    """The request body, refused 413 past `limit` bytes (before reading it when it says so)."""
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise Refused(413, f"Payload Too Large: the limit is {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] != "http.request":
            raise Refused(400, "The client left before sending its body")
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Refused(413, f"Payload Too Large: the limit is {limit} bytes")
        chunks.append(chunk)
        if not event.get("more_body", False):
            return b"".join(chunks)


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}


def _session_header(headers: dict[str, str]) -> str | None:
    session = headers.get(SESSION_ID)
    if session is not None and len(session) > MAX_ID_LENGTH:
        raise Refused(400, f"Acp-Session-Id is longer than {MAX_ID_LENGTH}")
    return session


def _refusal_headers(refused: Refused) -> list[tuple[bytes, bytes]]:
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    if refused.status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    elif refused.status == 429:
        headers.append((b"retry-after", b"1"))
    elif refused.status == 405:
        headers.append((b"allow", b"GET, POST, DELETE"))
    return headers


async def _respond(
    send: Send, status: int, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers or []})
    await send({"type": "http.response.body", "body": body})


async def _deny_websocket(scope: Scope, send: Send, refused: Refused) -> None:
    """Refuse an upgrade with its HTTP status where the server allows it (the ASGI
    `websocket.http.response` extension), else with a close (the server answers 403)."""
    if "websocket.http.response" in scope.get("extensions", {}):
        await send(
            {
                "type": "websocket.http.response.start",
                "status": refused.status,
                "headers": _refusal_headers(refused),
            }
        )
        await send({"type": "websocket.http.response.body", "body": str(refused).encode()})
    else:
        await send({"type": "websocket.close", "code": 1008})
