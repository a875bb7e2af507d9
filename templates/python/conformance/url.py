"""Agents behind a URL (layer: wire): `agent --url http(s)://…|ws(s)://… [--token-env NAME]` runs
the cases over ACP's remote transport instead of a program's stdin/stdout.

Each case gets a connection of its own (`Remote.open`, a runtime transport from
`remote.open_remote`), as a stdio case gets a fresh program; the runner's shared cases share one
connection as they share one program. The token is read from the environment variable NAME and
sent as the transports send it ("Authorization: Bearer <token>"); it is never printed, and never
written to a trace, a JUnit file or a page (those name the URL only).

What only a program the suite starts has (the end of its stdin, a half-close: closing an HTTP or
WebSocket connection ends it both ways; its stderr; its exit; a signal) has no form over a URL:
a case that needs it is a skip, "needs a program the suite starts (not --url)". Streamable HTTP
carries one JSON-RPC message per POST, and a connection begins with `initialize` (the RFD: "The
`initialize` request is special: it returns `200 OK` … and the `Acp-Connection-Id`"): a case
that sends anything else over HTTP is a skip saying so. WebSocket carries every line as a text
message, but a text message is UTF-8: a case sending other bytes is a skip too.

A URL that does not answer, or refuses the token, is one line and exit status 2 (`Remote.check`,
before any case).
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any
from urllib.parse import urlsplit

from ..runtime import transports
from ..runtime.transports.http_routing import (
    Refused,
    client_message_route,
    is_response,
    params_session,
)
from ..runtime.transports.remote import MissingExtra, open_remote
from ..runtime.transports.transport import Transport
from .peer import NoAnswer, Peer, Unsendable, answer_request, parse
from .runner import Edition, ToolError, editions, load_edition
from .steps import initialize_wire

NO_PROCESS = "an agent behind a URL has no process the suite can see"
HTTP_ONE_MESSAGE = "Streamable HTTP carries one JSON-RPC message (an object) per POST"
HTTP_INITIALIZE_FIRST = "over Streamable HTTP a connection begins with initialize"
WS_TEXT = (
    'over WebSocket "All messages are WebSocket text frames", and a text frame is UTF-8'
    " (RFC 6455 §5.6): the case sends bytes that are not"
)
HTTP_INITIALIZE_OPENS = "over Streamable HTTP initialize opens a connection"
HTTP_SESSION_SCOPED = (
    'over Streamable HTTP "POST requests for session-scoped operations MUST include both'
    ' `Acp-Connection-Id` and `Acp-Session-Id` headers", the session from params.sessionId'
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url",
        metavar="URL",
        help="test the agent served at http(s)://… (Streamable HTTP) or ws(s)://… (WebSocket)",
    )
    parser.add_argument(
        "--token-env",
        metavar="NAME",
        help="with --url: send the bearer token held in the environment variable NAME",
    )


class NoProcess:
    """The `process` of an agent behind a URL: none the suite can see (it never exits, and
    signalling its pid is "no such process")."""

    @property
    def pid(self) -> int:
        raise ProcessLookupError(NO_PROCESS)

    @pid.setter
    def pid(self, value: int) -> None:
        raise AttributeError(NO_PROCESS)

    def poll(self) -> int | None:
        return None


class RemoteStream:
    """A runtime transport to the agent as the `Stream` a `Peer` speaks over (see the module)."""

    program = False
    """No program behind it: `Peer.close_input` (a half-close) is `Unsendable`."""

    def __init__(self, transport: Transport, http: bool) -> None:
        self._transport = transport
        self._http = http
        self._initialized = not http

    @property
    def pid(self) -> int:
        raise ProcessLookupError(NO_PROCESS)

    @property
    def process(self) -> NoProcess:
        return NoProcess()

    async def read(self) -> bytes:
        return await self._transport.read()

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._http:
            self._check_http(data)
        else:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                raise Unsendable(WS_TEXT) from None
        self._transport.write(data, batch=batch)

    def _check_http(self, data: bytes) -> None:
        """`Unsendable` unless every line is one JSON object that Streamable HTTP carries to the
        agent: `initialize` first and only then, a session's request with its `sessionId`."""
        for line in data.split(b"\n")[:-1]:
            ok, value = parse(line)
            if not ok or type(value) is not dict:
                raise Unsendable(f"{HTTP_ONE_MESSAGE}: the case sends {_shown(line)}")
            opens = value.get("method") == "initialize" and not is_response(value)
            if not self._initialized and not opens:
                raise Unsendable(f"{HTTP_INITIALIZE_FIRST}: the case sends {_shown(line)}")
            if self._initialized and opens:
                raise Unsendable(f"{HTTP_INITIALIZE_OPENS}: the case sends a second one")
            self._initialized = True
            if "method" in value:
                try:  # the server's own rule, with the header our HTTP client sends
                    client_message_route(value, params_session(value))
                except Refused as refused:
                    reason = f"{HTTP_SESSION_SCOPED} (HTTP {refused.status}: {refused})"
                    raise Unsendable(f"{reason}: the case sends {_shown(line)}") from None

    async def close_input(self) -> None:
        """The end of the case: the connection ends (HTTP: what was written is POSTed, then
        DELETE; WebSocket: the closing handshake)."""
        await self._transport.close()


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace")
    return repr(text if len(text) <= 60 else text[:57] + "...")


class Remote:
    """The agent at `url`: a connection per case (`open`), checked once before the cases."""

    def __init__(self, url: str, token: str | None, token_env: str | None) -> None:
        self.url = url
        self._token = token
        self._token_env = token_env
        self._http = urlsplit(url).scheme.lower() in ("http", "https")

    @classmethod
    def from_options(cls, url: str, token_env: str | None) -> Remote:
        """ToolError for a URL of another scheme, or a token variable that is not set."""
        if urlsplit(url).scheme.lower() not in ("http", "https", "ws", "wss"):
            raise ToolError(f"--url takes http(s)://… or ws(s)://…, not {url!r}")
        token = None
        if token_env is not None:
            token = os.environ.get(token_env)
            if not token:
                raise ToolError(f"--token-env {token_env}: the environment variable is not set")
        return cls(url, token, token_env)

    async def open(self) -> Peer:
        """A new connection to the agent, spoken to frame by frame."""
        try:
            transport = await open_remote(self.url, token=self._token)
        except MissingExtra as error:
            raise ToolError(str(error)) from None
        except (ConnectionError, OSError) as error:
            raise ToolError(self._refusal(str(error))) from None
        return Peer(RemoteStream(transport, self._http), answer_request)

    async def check(self, edition: Edition, timeout: float) -> None:
        """ToolError (one line) unless the URL answers `initialize` with the token given."""
        peer = await self.open()
        try:
            wire = initialize_wire(edition.data, edition.models, edition.data.protocol_version)
            peer.request("reach", edition.data.negotiation.method, wire)
            answer = await peer.answer("reach", timeout, "initialize")
        except NoAnswer as silent:
            raise ToolError(f"{self.url} does not answer: {silent}") from None
        finally:
            await peer.close()
        error = answer.get("error")
        data = error.get("data") if type(error) is dict else None
        if type(error) is dict and type(data) is dict and data.keys() == {"status", "body"}:
            # Our HTTP client's answer to a POST refused or not delivered: {status, body}.
            status, message = data["status"], str(error.get("message", ""))
            if status is None:
                reason = message.removeprefix(f"{self.url}: ")
                raise ToolError(f"{self.url} does not answer: {reason}")
            raise ToolError(self._refusal(message, status))

    def _refusal(self, reason: str, status: Any = None) -> str:
        reason = reason.removeprefix(f"{self.url}: ")
        refused_token = status in (401, 403) or " 401" in reason or " 403" in reason
        if refused_token and self._token_env is not None:
            return f"{self.url} refused the token in ${self._token_env} ({reason})"
        if refused_token:
            return f"{self.url} asks for a token: give --token-env NAME ({reason})"
        return f"{self.url} does not answer: {reason}"


async def prepare(url: str, token_env: str | None, protocol: str, unstable: bool) -> Remote:
    """The agent at `url`, checked with `initialize` of the edition `protocol` names (`auto`:
    the newest this package has): ToolError when it does not answer or refuses the token."""
    # The transports log why a connection failed; the suite says it once, in its own line.
    logging.getLogger(transports.__name__).addHandler(logging.NullHandler())
    remote = Remote.from_options(url, token_env)
    if protocol == "auto":
        keys = [k for k in editions() if k.endswith("/unstable") == unstable]
        key = max(keys, key=lambda k: int(k.split("/")[0].removeprefix("v")))
    else:
        key = protocol + ("/unstable" if unstable else "")
    await remote.check(load_edition(key), 10.0)
    return remote
