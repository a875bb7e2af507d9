"""The client of ACP's Streamable HTTP transport: a `Transport` that POSTs and reads SSE streams.

Layer: transport. Needs the `http` extra: httpx (HTTP/2 through h2, cookies kept as the RFD
requires: "Clients MUST accept, store, and return cookies set by the server") and httpx-sse (the
SSE parser) for the streams; the POSTs go through httpcore, the connection pool under httpx,
directly: httpx's request and response models, cookie extraction, auth and redirect steps took
half of each POST's time, and a POST is one message (over loopback HTTP, rt1 1,269 → 1,675
per second, rt64 1,194 → 1,727).
Opened through `remote.open_remote`. The RFD's client side:

- "The `initialize` request is special: it returns `200 OK` with a JSON response body … and the
  `Acp-Connection-Id`"; then the client opens the connection-scoped GET stream.
- "For each session, the client opens a separate session-scoped GET stream using
  `Acp-Connection-Id` + `Acp-Session-Id`": when an answer hands out a `sessionId`, and before
  the first POST that names one; session-scoped POSTs carry `Acp-Session-Id`, and so does our
  answer to a request that came on a session's stream.
- POSTs go one at a time, in the order written (a `$/cancel_request` never overtakes its
  request). A request whose POST is refused (413, 429, 5xx) is answered with a JSON-RPC error
  carrying `{status, body}` (as the official TypeScript client does); 401, 403, 404 and 410, a
  failed notification or answer, and a network failure end the connection: every pending call
  fails at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from typing import Any

import httpcore
import httpx
import httpx_sse

from ..errors import ConnectionClosed
from ..json_codec import decode, encode
from .framing import ndjson_line
from .http_routing import (
    CONNECTION_ID,
    JSON,
    SESSION_ID,
    id_key,
    is_response,
    params_session,
    result_session,
)
from .queues import Inbox, SendQueue

log = logging.getLogger(__name__)

CONNECTION_FAILURES = frozenset({401, 403, 404, 410})
"""POST statuses that mean the connection is unusable or gone."""
_HIGH_WATER = 1024 * 1024
"""Bytes written and not yet POSTed above which `writing_paused()` says so."""
_STREAM_TIMEOUT = httpx.Timeout(30.0, read=None)
"""GET streams wait for events as long as it takes; everything else, 30 s."""
_FLUSH_TIMEOUT = 2.0
"""Seconds `close()` gives what was written to be POSTed before it ends the connection."""
_POST_TIMEOUTS = {"connect": 30.0, "read": 30.0, "write": 30.0, "pool": 30.0}
_HTTPCORE_ERRORS = (
    httpcore.NetworkError,
    httpcore.TimeoutException,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ConnectionNotAvailable,
    OSError,
)


class _Answer:
    """A POST's response, read whole."""

    __slots__ = ("content", "headers", "status_code")

    def __init__(self, response: httpcore.Response) -> None:
        self.status_code = response.status
        self.headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers
        }
        self.content = response.content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class StreamableHttpTransport:
    """A `Transport` to the agent at `url` over Streamable HTTP (see the module)."""

    def __init__(
        self,
        url: str,
        client: httpx.AsyncClient,
        frame_limit: int,
        pool: httpcore.AsyncConnectionPool,
        headers: dict[str, str],
    ) -> None:
        self._url = url
        self._client = client
        self._pool = pool
        self._sent_headers = [
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()
        ]
        self._inbox = Inbox(frame_limit)
        self._outgoing = SendQueue(_HIGH_WATER)
        self._idle = asyncio.Event()  # everything written has been POSTed
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())
        self._connection_id: str | None = None
        self._streams: dict[str | None, asyncio.Task[None]] = {}  # None: the connection's
        self._opened: dict[str, asyncio.Future[None]] = {}
        self._answer_sessions: dict[str, str] = {}  # the agent's requests: their session
        self._session_requests: dict[str, tuple[str, Any]] = {}  # ours: key → (session, id)
        self._closed = False

    # -- the Transport protocol --------------------------------------------------------------

    async def read(self) -> bytes:
        return await self._inbox.read()

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._closed:
            raise ConnectionClosed("the HTTP connection is closed")
        self._outgoing.put(data)
        if self._outgoing:
            self._idle.clear()

    def writing_paused(self) -> bool:
        return self._closed or self._outgoing.full()

    async def drain(self) -> None:
        await self._outgoing.drain(lambda: self._closed)

    async def close(self) -> None:
        """POST what was written (for `_FLUSH_TIMEOUT` seconds at most: a notification written
        just before closing still arrives), stop reading, then end the connection on the server
        (DELETE)."""
        if self._closed:
            return
        # Until everything written is POSTed, or the sender ended (the connection failed): the
        # sender itself only ends on a failure, so waiting for both would always time out.
        idle = asyncio.get_running_loop().create_task(self._idle.wait())
        await asyncio.wait(
            {idle, self._sender}, timeout=_FLUSH_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
        )
        idle.cancel()
        if self._closed:
            return
        self._closed = True
        self._outgoing.sent()
        self._sender.cancel()
        for task in [self._sender, *self._streams.values()]:
            task.cancel()
        await asyncio.gather(self._sender, *self._streams.values(), return_exceptions=True)
        if self._connection_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                await self._client.delete(self._url, headers=self._headers(), timeout=5.0)
        await self._client.aclose()
        await self._pool.aclose()
        self._inbox.end()

    # -- sending -----------------------------------------------------------------------------

    async def _send_loop(self) -> None:
        while True:
            line = await self._outgoing.take(self._idle.set)
            self._outgoing.sent()
            try:
                message = decode(line)
            except ValueError:
                message = None
            if not isinstance(message, dict):
                log.error("not sent: a frame that is not a JSON object")
                continue
            if self._connection_id is None:
                await self._initialize(message, line)
            else:
                await self._post(message, line)
            if self._inbox.ended:
                return

    async def _initialize(self, message: dict[str, Any], line: bytes) -> None:
        if message.get("method") != "initialize":
            self._fail(message, "the first message to an HTTP agent must be initialize", None)
            return
        response = await self._request(message, line, self._json())
        if response is None:
            return
        connection_id = response.headers.get(CONNECTION_ID)
        if response.status_code != 200 or connection_id is None:
            self._fail(message, _refusal("initialize", response), response)
            return
        self._connection_id = connection_id
        self._open_stream(None)
        await self._receive(response.content)

    async def _post(self, message: dict[str, Any], line: bytes) -> None:
        session = params_session(message) if "method" in message else None
        key = id_key(message.get("id"))
        if session is None and is_response(message) and key is not None:
            session = self._answer_sessions.pop(key, None)
        headers = self._json()
        if session is not None:
            headers[SESSION_ID] = session
            await self._stream_open(session)
            if "method" in message and key is not None:
                self._session_requests[key] = (session, message["id"])
        response = await self._request(message, line, headers)
        if response is None or response.status_code in (200, 202):
            return
        self._fail(message, _refusal(str(message.get("method", "answer")), response), response)

    async def _request(
        self, message: dict[str, Any], line: bytes, headers: dict[str, str]
    ) -> _Answer | None:
        """POST `line`; None when it did not get through (the connection then ends)."""
        sent = [*self._sent_headers]
        sent += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        if self._client.cookies:
            cookies = "; ".join(f"{c.name}={c.value}" for c in self._client.cookies.jar)
            sent.append((b"cookie", cookies.encode("latin-1")))
        try:
            response = await self._pool.request(
                "POST",
                self._url,
                headers=sent,
                content=line,
                extensions={"timeout": _POST_TIMEOUTS},
            )
        except _HTTPCORE_ERRORS as error:
            self._fail(message, f"{self._url}: {type(error).__name__}: {error}", None, fatal=True)
            return None
        answer = _Answer(response)
        if "set-cookie" in answer.headers:
            self._keep_cookies(response)
        return answer

    def _keep_cookies(self, response: httpcore.Response) -> None:
        """The cookies a POST's answer sets, into the jar the streams' requests use."""
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers]
        request = httpx.Request("POST", self._url)
        self._client.cookies.extract_cookies(
            httpx.Response(response.status, headers=headers, request=request)
        )

    def _fail(
        self,
        message: dict[str, Any],
        reason: str,
        response: _Answer | None,
        *,
        fatal: bool = False,
    ) -> None:
        """A message that did not get through: a request is answered with an error; the
        connection ends when it is unusable (or the message was not a request)."""
        status = None if response is None else response.status_code
        is_request = "method" in message and id_key(message.get("id")) is not None
        if is_request:
            data = {"status": status, "body": None if response is None else response.text[:8192]}
            error = {"code": -32603, "message": reason, "data": data}
            self._inbox.put(encode({"jsonrpc": "2.0", "id": message["id"], "error": error}) + b"\n")
        if fatal or not is_request or status in CONNECTION_FAILURES or self._connection_id is None:
            log.error("%s", reason)
            self._end()

    # -- receiving ---------------------------------------------------------------------------

    def _open_stream(self, session: str | None) -> None:
        if session in self._streams or self._closed:
            return
        if session is not None:
            self._opened[session] = asyncio.get_running_loop().create_future()
        task = asyncio.get_running_loop().create_task(self._read_stream(session))
        self._streams[session] = task

    async def _stream_open(self, session: str) -> None:
        """Wait until the session's stream answered (it receives what the POST causes)."""
        self._open_stream(session)
        opened = self._opened.get(session)
        if opened is not None:
            with contextlib.suppress(ConnectionError):
                await opened

    async def _read_stream(self, session: str | None) -> None:
        headers = self._headers()
        if session is not None:
            headers[SESSION_ID] = session
        opened = self._opened.get(session) if session is not None else None
        try:
            async with httpx_sse.aconnect_sse(
                self._client, "GET", self._url, headers=headers, timeout=_STREAM_TIMEOUT
            ) as events:
                response = events.response
                if response.status_code != 200:
                    await response.aread()
                    raise ConnectionError(_refusal("the event stream", response))
                if opened is not None and not opened.done():
                    opened.set_result(None)
                async for event in events.aiter_sse():
                    if event.data:
                        await self._receive(event.data.encode(), session)
        except (httpx.HTTPError, httpx_sse.SSEError) as error:
            if not self._closed:  # the agent is gone (or speaks no SSE): end the connection
                log.error(
                    "%s: the event stream broke: %s: %s", self._url, type(error).__name__, error
                )
                self._end()
        except ConnectionError as error:
            if not self._closed:
                log.error("%s", error)
        finally:
            if opened is not None and not opened.done():
                opened.set_exception(ConnectionError("the session's stream did not open"))
            self._stream_ended(session)

    async def _receive(self, data: bytes, stream: str | None = None) -> None:
        line = ndjson_line(data)
        if line is None:
            log.error("the agent sent an event that is not JSON (%d bytes)", len(data))
            return
        message = decode(line) if b'"sessionId"' in line or stream is not None else None
        if isinstance(message, dict):
            key = id_key(message.get("id"))
            if is_response(message):
                handed_out = result_session(message)
                if handed_out is not None:
                    self._open_stream(handed_out)
                if key is not None:
                    self._session_requests.pop(key, None)
            elif stream is not None and key is not None:
                self._answer_sessions[key] = stream
        await self._inbox.put_when_room(line + b"\n")

    def _stream_ended(self, session: str | None) -> None:
        self._streams.pop(session, None)
        if session is not None:
            self._opened.pop(session, None)
        if self._closed or self._inbox.ended:
            return
        if session is None:
            self._end()  # the connection-scoped stream ended: the agent is gone
            return
        # "If a session's SSE stream closes while requests are in flight, those requests fail and
        # the next message for the session reopens its stream" (the TypeScript client).
        for key, (owner, request_id) in list(self._session_requests.items()):
            if owner == session:
                del self._session_requests[key]
                error = {"code": -32603, "message": "the session's event stream ended"}
                answer = {"jsonrpc": "2.0", "id": request_id, "error": error}
                self._inbox.put(encode(answer) + b"\n")

    def _end(self) -> None:
        """The connection is unusable: our `Connection` sees the end of input (pending calls
        fail at once) and closes us."""
        self._inbox.end()

    def _headers(self) -> dict[str, str]:
        return {} if self._connection_id is None else {CONNECTION_ID: self._connection_id}

    def _json(self) -> dict[str, str]:
        return {**self._headers(), "content-type": JSON, "accept": JSON}


def _refusal(what: str, response: _Answer | httpx.Response) -> str:
    body = response.text.strip().splitlines()
    detail = f": {body[0][:200]}" if body else ""
    return f"{what} refused: HTTP {response.status_code}{detail}"


async def open_streamable_http(
    url: str,
    headers: dict[str, str],
    frame_limit: int,
    *,
    http2: bool,
    verify: bool | ssl.SSLContext,
) -> StreamableHttpTransport:
    """A transport to the agent at `url`; nothing is sent before the first message."""
    client = httpx.AsyncClient(headers=headers, http2=http2, verify=verify, timeout=30.0)
    context: ssl.SSLContext | None = None
    if url.lower().startswith("https:"):
        context = verify if isinstance(verify, ssl.SSLContext) else ssl.create_default_context()
        if verify is False:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    pool = httpcore.AsyncConnectionPool(ssl_context=context, http2=http2, max_connections=4)
    return StreamableHttpTransport(url, client, frame_limit, pool, headers)
