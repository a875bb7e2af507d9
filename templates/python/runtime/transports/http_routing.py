"""Which stream carries a message: the routing rules of ACP's remote transport, as pure functions.

Layer: transport. The RFD "Streamable HTTP & WebSocket Transport" (agentclientprotocol.com/rfds):

- "`Acp-Connection-Id` (HTTP header) — Transport-level identifier returned by the server in the
  `initialize` response. Required on all HTTP requests after `initialize`".
- "`Acp-Session-Id` (HTTP header) — … Required on all session-scoped POST requests
  (`session/prompt`, `session/cancel`, permission responses, etc.) and on the session-scoped GET
  stream."
- "The connection-scoped stream … carries connection-level messages: responses to `session/new`
  and `session/load` …, and any server-initiated messages not tied to a specific session. The
  session-scoped stream … carries all messages for a single session: session update
  notifications, server-to-client requests like `request_permission`, and responses to
  session-scoped POSTs".

The session of a message is its `params.sessionId` (requests and notifications) or the session of
the POST it answers; the official TypeScript SDK 2.4.0 routes the same way (its
`experimental/server`), so its client and ours read the same streams.
"""

from __future__ import annotations

from typing import Any

CONNECTION_ID = "acp-connection-id"
"""The `Acp-Connection-Id` header, as ASGI spells header names (lower case)."""
SESSION_ID = "acp-session-id"
"""The `Acp-Session-Id` header."""
EVENT_STREAM = "text/event-stream"
JSON = "application/json"
MAX_ID_LENGTH = 1024
"""The longest connection, session or request id kept track of (longer: 400)."""

SESSION_SCOPED_METHODS = frozenset(
    {
        "session/cancel",
        "session/close",
        "session/delete",
        "session/fork",
        "session/load",
        "session/prompt",
        "session/resume",
        "session/set_config_option",
        "session/set_mode",
        "session/set_model",
    }
)
"""The client's methods that need `Acp-Session-Id` ("Session-scoped request missing
Acp-Session-Id? → 400 Bad Request"); those of the TypeScript SDK's server."""

CONNECTION_ROUTED_ANSWERS = frozenset({"session/load"})
"""Requests answered on the connection stream although session-scoped: "responses to
`session/new` and `session/load` (which the client cannot receive on a session-scoped stream
because it does not yet have a `sessionId`)"."""

Route = str | None
"""A session id (its session-scoped stream), or None: the connection-scoped stream."""


def id_key(message_id: Any) -> str | None:
    """A request id as a dictionary key that keeps `1` and `"1"` apart; None for no usable id."""
    if isinstance(message_id, bool):
        return None
    if isinstance(message_id, int):
        return f"n{message_id}"
    if isinstance(message_id, str):
        return f"s{message_id}"
    return None


def params_session(message: dict[str, Any]) -> str | None:
    """`params.sessionId` of a request or notification, when it is a string."""
    params = message.get("params")
    if isinstance(params, dict):
        session = params.get("sessionId")
        if isinstance(session, str):
            return session
    return None


def result_session(message: dict[str, Any]) -> str | None:
    """`result.sessionId` of a response (`session/new`, `session/fork`…): a session handed out."""
    result = message.get("result")
    if isinstance(result, dict):
        session = result.get("sessionId")
        if isinstance(session, str):
            return session
    return None


def is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


class Refused(Exception):
    """A client's HTTP request refused: answered `status` with this one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def client_message_route(message: dict[str, Any], header_session: str | None) -> Route:
    """The session a client's request or notification belongs to (None: the connection);
    `Refused` (400) when its headers and body disagree.

    "POST requests for session-scoped operations MUST include both `Acp-Connection-Id` and
    `Acp-Session-Id` headers."
    """
    session = params_session(message)
    method = message.get("method")
    if header_session is None:
        # A method that is not a string (an invalid request) is no session's: the agent's
        # connection answers it -32600.
        if session is not None or (isinstance(method, str) and method in SESSION_SCOPED_METHODS):
            raise Refused(400, "Missing Acp-Session-Id")
        return None
    if session is not None and session != header_session:
        raise Refused(400, "Acp-Session-Id does not match params.sessionId")
    return header_session


def answer_route(message: dict[str, Any], route: Route) -> Route:
    """Where the answer to a client's request goes: with the request's session, except the
    requests answered on the connection stream."""
    method = message.get("method")
    return None if isinstance(method, str) and method in CONNECTION_ROUTED_ANSWERS else route
