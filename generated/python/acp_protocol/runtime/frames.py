# Copied by acp-codegen from templates/python/runtime/frames.py. Do not edit here:
# edit the source, then run `make generate`.

"""Classifying a decoded line as a JSON-RPC request, notification or response, and building frames.

Layer: dispatcher.

ACP does not use batches ("ACP does not use JSON-RPC batches", schema v2), so a JSON array is an
invalid request like any other non-object value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TypeAlias

from .errors import INVALID_REQUEST

# Frames are built once per received line and never changed: plain slotted dataclasses, not
# frozen ones (a frozen dataclass's __init__ costs three times as much, on every message).

RequestId: TypeAlias = int | str
"""A request id as this runtime accepts it: an integer (0 included) or a string, never a bool."""


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def as_request_id(value: Any) -> RequestId | None:
    """`value` if it is a usable request id, else None.

    Booleans are rejected: `True` would alias request id 1 (`True == 1` in Python). `null` is
    rejected too: an answer to it could not be told from the answer to an unparsable line. An
    integer must be an int64 (ACP's `RequestId`: `"type": "integer", "format": "int64"`): beyond
    it orjson reads a float and the `json` module an int, so the answer would hang on which one
    is installed.
    """
    value_type = type(value)
    if value_type is str or (value_type is int and _INT64_MIN <= value <= _INT64_MAX):
        return value  # type: ignore[no-any-return]
    return None


@dataclass(slots=True)
class Request:
    id: RequestId
    method: str
    params: Any


@dataclass(slots=True)
class Notification:
    method: str
    params: Any


@dataclass(slots=True)
class Response:
    """A result (`error` is None) or an error (`error` is the raw `error` member)."""

    id: Any
    result: Any
    error: Any


@dataclass(slots=True)
class Invalid:
    """Not a valid message: answer `-32600` with `id` (None when it had no usable id), unless it
    is shaped as a notification, which "The Server MUST NOT reply to" (JSON-RPC 2.0 §4.1)."""

    id: RequestId | None
    reason: str
    answer: bool = True


Frame: TypeAlias = Request | Notification | Response | Invalid


_ID_AT_START = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*[,}]')


def oversized_frame_id(head: bytes) -> RequestId | None:
    """The `id` of a frame too large to parse, read from its first bytes, or None.

    A top-level `"id"` can only be told from one nested in params by parsing; ACP messages put
    `id` before `params`/`result` (`{"jsonrpc":"2.0","id":7,"method":…}`), so the first `"id"`
    member is taken. A wrong guess costs an error answer to an id that has none pending."""
    found = _ID_AT_START.search(head)
    if found is None:
        return None
    token = found.group(1)
    try:
        return as_request_id(json.loads(token))
    except ValueError:
        return None


def classify(message: Any) -> Frame:
    """What a decoded JSON value is, by JSON-RPC 2.0 §4 and §5."""
    if type(message) is not dict:
        return Invalid(None, f"a message must be a JSON object, not {_json_type(message)}")
    if "method" not in message:
        if "result" in message or "error" in message:
            return Response(message.get("id"), message.get("result"), message.get("error"))
        return Invalid(
            as_request_id(message.get("id")), "a message needs a method (call) or a result or error"
        )
    # A call (in this function rather than one of its own: one call less per message).
    method = message["method"]
    has_id = "id" in message
    if has_id:
        request_id = as_request_id(message["id"])
        if request_id is None:
            return Invalid(None, "a request id must be an integer or a string")
    else:
        request_id = None
    if type(method) is not str:
        return Invalid(request_id, "the method must be a string")
    if message.get("jsonrpc") != "2.0":
        return Invalid(request_id, 'the "jsonrpc" member must be exactly "2.0"', has_id)
    params = message.get("params")
    if params is not None and type(params) is not dict and type(params) is not list:
        return Invalid(request_id, "params must be an object or an array", has_id)
    if request_id is None:
        return Notification(method, params)
    return Request(request_id, method, params)


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def request_frame(request_id: RequestId, method: str, params: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        frame["params"] = params
    return frame


def notification_frame(method: str, params: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        frame["params"] = params
    return frame


def result_frame(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_frame(request_id: RequestId | None, error: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def invalid_request_error(reason: str) -> dict[str, Any]:
    return {"code": INVALID_REQUEST, "message": "Invalid request", "data": {"details": reason}}
