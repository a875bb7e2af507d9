"""A mock of the Anthropic Messages API (`POST /v1/messages`, streamed as server-sent events:
message_start, content_block_start / _delta / _stop, message_delta, message_stop), for
claude-agent-acp (`ANTHROPIC_BASE_URL`). Any other path is answered `{}`."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.field.mocks.script import Script, Text, ToolUse
from tests.field.mocks.server import Exchange, Respond

USAGE = {"input_tokens": 10, "output_tokens": 5}


def event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def responder(script: Script) -> Respond:
    def respond(exchange: Exchange) -> None:
        if exchange.method != "POST" or not exchange.path.startswith("/v1/messages"):
            exchange.send_json({})
            return
        request = exchange.json()
        if exchange.path.startswith("/v1/messages/count_tokens"):
            exchange.send_json({"input_tokens": 10})
            return
        script.requests.append(request)
        reply = script.fallback if side_request(request) else script.reply(answered(request))
        if not request.get("stream"):
            exchange.send_json(whole(request, reply))
            return
        exchange.start_stream()
        stream(exchange, request, reply)

    return respond


def answered(request: dict[str, Any]) -> int:
    """How many answers of the model the conversation holds."""
    return sum(1 for m in request.get("messages", []) if m.get("role") == "assistant")


SIDE_REQUESTS = ("SUGGESTION MODE:",)
"""How Claude Code's own side requests begin (a suggestion of what the user types next)."""


def side_request(request: dict[str, Any]) -> bool:
    messages = request.get("messages") or [{}]
    content = messages[-1].get("content")
    text = (
        content
        if isinstance(content, str)
        else " ".join(
            str(block.get("text", "")) for block in content or [] if isinstance(block, dict)
        )
    )
    return text.lstrip().startswith(SIDE_REQUESTS)


def message_start(request: dict[str, Any], number: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": f"msg_{number:04d}",
            "type": "message",
            "role": "assistant",
            "model": request.get("model", "claude"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }


def stream(exchange: Exchange, request: dict[str, Any], reply: Text | ToolUse) -> None:
    if not exchange.write(event("message_start", message_start(request, id(reply) % 10000))):
        return
    index = 0
    if isinstance(reply, ToolUse) and reply.preamble:
        text_block(exchange, index, Text((reply.preamble,)))
        index += 1
    if isinstance(reply, Text):
        if not text_block(exchange, index, reply):
            return
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": reply.call_id, "name": reply.name, "input": {}}
        exchange.write(
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        )
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.arguments)}
        exchange.write(
            event(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        )
        exchange.write(event("content_block_stop", {"type": "content_block_stop", "index": index}))
        stop = "tool_use"
    exchange.write(
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    exchange.write(event("message_stop", {"type": "message_stop"}))


def text_block(exchange: Exchange, index: int, reply: Text) -> bool:
    start = {
        "type": "content_block_start",
        "index": index,
        "content_block": {"type": "text", "text": ""},
    }
    if not exchange.write(event("content_block_start", start)):
        return False
    for part in reply.deltas:
        delta = {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": part},
        }
        if not exchange.write(event("content_block_delta", delta)):
            return False
        if reply.pause:
            time.sleep(reply.pause)
    return exchange.write(
        event("content_block_stop", {"type": "content_block_stop", "index": index})
    )


def whole(request: dict[str, Any], reply: Text | ToolUse) -> dict[str, Any]:
    """The same reply, not streamed (a request without `stream`)."""
    if isinstance(reply, Text):
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
        stop = "end_turn"
    else:
        content = [
            {"type": "tool_use", "id": reply.call_id, "name": reply.name, "input": reply.arguments}
        ]
        stop = "tool_use"
    message = message_start(request, 0)["message"]
    return {**message, "content": content, "stop_reason": stop, "usage": USAGE}
