"""JSON-RPC errors as exceptions, and the one place that turns a handler's outcome into an error.

Layer: dispatcher.

Codes (JSON-RPC 2.0 §5.1, plus ACP's `ErrorCode` `-32800` "Request cancelled", taken from the range
LSP reserves):

- `-32700` parse error: the line is not JSON; answered with `"id": null`.
- `-32600` invalid request: JSON, but not a request, response or notification object.
- `-32601` method not found, `-32602` invalid params, `-32603` internal error.
- `-32800` request cancelled.
- `-32022` unsupported protocol version (ACP v2's; `UnsupportedVersion` also reports an `initialize`
  answered in a version the client does not speak).
"""

from __future__ import annotations

import json
import traceback
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
UNSUPPORTED_VERSION = -32022


class RpcError(Exception):
    """A JSON-RPC error object: raised by a handler to answer with it, or received from the peer."""

    default_code = INTERNAL_ERROR
    default_message = "Internal error"

    def __init__(self, message: str | None = None, data: Any = None, *, code: int | None = None):
        self.code = self.default_code if code is None else code
        self.message = self.default_message if message is None else message
        self.data = data
        super().__init__(self.message)

    def to_wire(self) -> dict[str, Any]:
        """The `error` member of a response."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r})"
        )

    def __str__(self) -> str:
        """One line: message, code, and what the data says (`details`, `message`, or the data)."""
        text = f"{self.message} ({self.code})"
        detail = _detail_of(self.data)
        return f"{text}: {detail}" if detail and detail not in self.message else text

    @staticmethod
    def from_wire(error: Any) -> RpcError:
        """The exception for an `error` member received from the peer (a malformed one included)."""
        if not isinstance(error, dict):
            return InvalidResponse("response error is not an object", {"error": error})
        code, message = error.get("code"), error.get("message")
        if type(code) is not int or not isinstance(message, str):
            return InvalidResponse("response error lacks an integer code or a message", error)
        error_class = _CLASS_BY_CODE.get(code, RpcError)
        return error_class(message, error.get("data"), code=code)


def _detail_of(data: Any, limit: int = 300) -> str:
    if data is None:
        return ""
    if isinstance(data, dict):
        for key in ("details", "message", "error"):
            if isinstance(data.get(key), str) and data[key]:
                return _one_line(data[key], limit)
    return _one_line(data if isinstance(data, str) else json.dumps(data, default=str), limit)


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class ParseError(RpcError):
    default_code = PARSE_ERROR
    default_message = "Parse error"


class InvalidRequest(RpcError):
    default_code = INVALID_REQUEST
    default_message = "Invalid request"


class MethodNotFound(RpcError):
    default_code = METHOD_NOT_FOUND
    default_message = "Method not found"


class InvalidParams(RpcError):
    """`-32602`. Raise it from a handler, or build it from a pydantic error (`from_validation`)."""

    default_code = INVALID_PARAMS
    default_message = "Invalid params"

    @classmethod
    def from_validation(cls, error: Exception) -> InvalidParams:
        """Carry a pydantic `ValidationError`'s details (location, message, type) in `data`."""
        return cls(data=validation_details(error))


class InternalError(RpcError):
    default_code = INTERNAL_ERROR
    default_message = "Internal error"


class InvalidResponse(RpcError):
    """The peer's response was malformed; raised to the caller that waited for it."""

    default_code = INTERNAL_ERROR
    default_message = "Invalid response"


class RequestCancelled(RpcError):
    """`-32800` "Request cancelled".

    Raised to a caller whose request was cancelled (by the peer's answer, or locally when the
    request was never sent or the dialect sends no answer), and raised inside a handler to give up
    on its own:
    "the executing party SHOULD: Send the same `-32800` (Cancelled) error response as if
    `$/cancel_request` was received" (ACP `cancellation.mdx`).
    """

    default_code = REQUEST_CANCELLED
    default_message = "Request cancelled"


class UnsupportedVersion(RpcError):
    """`-32022` "Unsupported protocol version": a client and an agent of different protocol
    versions, named both ways in one line.

    An agent answers it to an `initialize` asking for a version below all it implements ("No
    protocol version supported by the Agent is at or below the requested version. The error data
    is an `UnsupportedProtocolVersionErrorData`": `{requested, supported}`), before reading the
    rest of the params (they are in the client's version). A client raises it when the agent
    answers a version other than the client's (`{requested, answered}`): ACP v1 has no such
    code, and a v1 agent asked for 2 answers 1.
    """

    default_code = UNSUPPORTED_VERSION
    default_message = "Unsupported protocol version"

    def __str__(self) -> str:
        data = self.data if isinstance(self.data, dict) else {}
        asked = f"the client asked for version {data.get('requested')}"
        if "answered" in data:
            return f"{self.message} ({self.code}): {asked}, the agent answered {data['answered']}"
        if isinstance(data.get("supported"), list):
            supported = ", ".join(str(v) for v in data["supported"])
            return f"{self.message} ({self.code}): {asked}, the agent supports {supported}"
        return super().__str__()


class ConnectionClosed(ConnectionError):
    """The connection is closed or the peer is gone; every pending caller gets this."""


_CLASS_BY_CODE: dict[int, type[RpcError]] = {
    PARSE_ERROR: ParseError,
    INVALID_REQUEST: InvalidRequest,
    METHOD_NOT_FOUND: MethodNotFound,
    INVALID_PARAMS: InvalidParams,
    REQUEST_CANCELLED: RequestCancelled,
    UNSUPPORTED_VERSION: UnsupportedVersion,
}


def cancelled_error(request_id: Any, error: RequestCancelled | None = None) -> dict[str, Any]:
    """The `-32800` error object for `request_id`, with `data: {"requestId": id}`."""
    data: dict[str, Any] = {"requestId": request_id}
    if error is not None and isinstance(error.data, dict):
        data = {**error.data, "requestId": request_id}
    message = error.message if error is not None else RequestCancelled.default_message
    return {"code": REQUEST_CANCELLED, "message": message, "data": data}


def error_for_exception(error: BaseException, *, include_traceback: bool = False) -> dict[str, Any]:
    """The error object answering a handler that raised `error` (cancellation is handled apart).

    An `RpcError` is sent as it is. Anything else is a handler crash: `-32603` with the exception's
    type and message in `data.details`; the traceback only when the connection was asked to send it.
    """
    if isinstance(error, RpcError):
        return error.to_wire()
    data: dict[str, Any] = {"details": f"{type(error).__name__}: {error}"}
    if include_traceback:
        data["traceback"] = "".join(traceback.format_exception(error))
    return {"code": INTERNAL_ERROR, "message": InternalError.default_message, "data": data}


def validation_summary(error: Exception) -> str:
    """A pydantic `ValidationError` for a log line: locations and error types, never the values
    (a peer's params may carry secrets; pydantic's own text quotes them as `input_value=`)."""
    errors = getattr(error, "errors", None)
    if errors is None:
        return type(error).__name__
    items = errors(include_url=False, include_input=False, include_context=False)
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or '(root)'}: {item['type']}"
        for item in items[:10]
    ) + (f"; and {len(items) - 10} more" if len(items) > 10 else "")


def validation_details(error: Exception) -> dict[str, Any]:
    """A pydantic `ValidationError` as JSON: `{"errors": [{loc, msg, type}, …]}`, no inputs."""
    errors = getattr(error, "errors", None)
    if errors is None:
        return {"details": str(error)}
    details = [
        {"loc": list(item["loc"]), "msg": item["msg"], "type": item["type"]}
        for item in errors(include_url=False, include_input=False)
    ]
    return {"errors": details}
