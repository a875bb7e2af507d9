"""What the dispatcher answers to a frame it cannot route: unparsable, invalid or oversized.

Layer: dispatcher (`connection.Connection` writes what these return).

JSON-RPC 2.0: "If there was an error in detecting the id in the Request object (e.g. Parse
error/Invalid Request), it MUST be Null"; a notification is never answered, so an invalid frame
that reads as one gets nothing back.
"""

from __future__ import annotations

import logging
from typing import Any

from .errors import INVALID_REQUEST, PARSE_ERROR, InvalidResponse
from .frames import Invalid, RequestId, error_frame, invalid_request_error, oversized_frame_id
from .transports.transport import OversizedFrame

log = logging.getLogger(__name__.rpartition(".")[0] + ".connection")
"""Logged under the connection's name, where a user's logging configuration already looks."""


def parse_error_answer(line: bytes, error: ValueError) -> dict[str, Any]:
    """The `-32700` answer (id null) to a line that is not JSON; one warning logged."""
    log.warning("unparsable frame (%d bytes): %s", len(line), error)
    return error_frame(None, {"code": PARSE_ERROR, "message": "Parse error", "data": str(error)})


def invalid_answer(frame: Invalid) -> dict[str, Any] | None:
    """The `-32600` answer to an invalid frame, None when it gets none; one warning logged."""
    log.warning("invalid frame: %s", frame.reason)
    return error_frame(frame.id, invalid_request_error(frame.reason)) if frame.answer else None


def oversized(
    frame: OversizedFrame, limit: int
) -> dict[str, Any] | tuple[RequestId, InvalidResponse] | None:
    """A frame over `limit` was dropped unread. When its start shows an id, no one waits forever:
    a request gets a `-32600` answer with the limit (returned as a frame to write), a response
    fails our caller (returned as the id and the error to fail it with); else None."""
    request_id = oversized_frame_id(frame.head)
    if request_id is None:
        return None
    data = {"limit": limit, "size": frame.size}
    if b'"method"' in frame.head:
        return error_frame(
            request_id, {"code": INVALID_REQUEST, "message": "Frame too large", "data": data}
        )
    return request_id, InvalidResponse("the response exceeds the frame size limit", data)
