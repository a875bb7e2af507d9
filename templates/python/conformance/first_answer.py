"""The program's first answer (layer: cases): `initialize`, the first request a case sends to a
fresh program, is answered with its id, or the run stops at once (`NeverAnswered`) saying what
came back: an answer with another id, lines that are no answer, or nothing.

JSON-RPC 2.0 §5: the response's id "MUST be the same as the value of the id member in the
Request Object". A program that does not answer its first request so is not judged case by case
(every case would wait its deadline and fail a rule it never reached): the run ends there.
"""

from __future__ import annotations

import json
from typing import Any

from .cases import Context, NeverAnswered
from .peer import Frame, NoAnswer, Peer, same_id

SHOWN_LINES = 3
"""Lines the program wrote that the stop's reason quotes (the first ones)."""
LINE_WIDTH = 200


def is_answer(frame: Frame) -> bool:
    """A JSON-RPC response, whatever its id: an object with `result` or `error`, no `method`."""
    message = frame.message
    return (
        message is not None
        and "method" not in message
        and ("result" in message or "error" in message)
    )


def shown(frame: Frame) -> str:
    text = frame.raw if frame.raw is not None else json.dumps(frame.value, ensure_ascii=False)
    return text if len(text) <= LINE_WIDTH else text[: LINE_WIDTH - 1] + "…"


def came_back(peer: Peer) -> str:
    """What the program wrote so far, in a few words."""
    lines = [f for f in peer.received if f.is_json or f.raw is not None]
    if not lines:
        return "it wrote nothing on stdout"
    quoted = "; ".join(shown(f) for f in lines[:SHOWN_LINES])
    more = f" (and {len(lines) - SHOWN_LINES} more)" if len(lines) > SHOWN_LINES else ""
    return f"it wrote {len(lines)} line{'s' if len(lines) > 1 else ''}: {quoted}{more}"


async def first_answer(ctx: Context, method: str, params: Any) -> dict[str, Any]:
    """Send `method` (the program's first request) and return its answer; `NeverAnswered` when
    an answer with another id comes, or none within the timeout."""
    request_id = ctx.next_id()
    ctx.peer.request(request_id, method, params)
    try:
        frame = await ctx.peer.wait_for(is_answer, ctx.timeout, f"answer to {method}")
    except NoAnswer as error:
        raise NeverAnswered(
            f"{method} (id {request_id}) was never answered: {error}; {came_back(ctx.peer)}"
        ) from None
    message = frame.message
    assert message is not None
    if not same_id(message.get("id"), request_id):
        got = f"id {json.dumps(message['id'])}" if "id" in message else "no id"
        raise NeverAnswered(f"{method} (id {request_id}) was answered with {got}: {shown(frame)}")
    return message
