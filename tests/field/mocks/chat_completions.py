"""A mock of the OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`, streamed as
server-sent events `data: {"choices":[{"delta":…}]}` … `data: [DONE]`), the shape Mistral's API
and every "OpenAI-compatible" provider share: for opencode (a custom provider's `baseURL`) and
mistral-vibe (its `mistral` provider's `api_base`). A tool use is one `delta.tool_calls` entry,
ending `finish_reason: "tool_calls"`. `GET /v1/models` lists one model; any other request is
answered 404 as the API answers a path it does not serve, and kept in the script's `elsewhere`.

An agent's own side request (a title for the session: opencode and mistral-vibe both ask one, in
parallel with the turn) offers the model no tools; it gets the script's fallback, not the turn's
next reply."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.field.mocks.script import Script, Text, ToolUse
from tests.field.mocks.server import Exchange, Respond

MODEL = "mock-model"
USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def responder(script: Script) -> Respond:
    def respond(exchange: Exchange) -> None:
        path = exchange.path.split("?")[0]
        if exchange.method == "GET" and path.endswith("/models"):
            exchange.send_json({"object": "list", "data": [{"id": MODEL, "object": "model"}]})
            return
        if exchange.method != "POST" or not path.endswith("/chat/completions"):
            script.elsewhere.append(f"{exchange.method} {exchange.path}")
            error = {"message": f"no route {path}", "type": "invalid_request_error"}
            exchange.send_json({"error": error}, status=404)
            return
        request = exchange.json()
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
    return sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant")


def side_request(request: dict[str, Any]) -> bool:
    """A request of the agent's own (a title), not the turn's: it offers the model no tools."""
    return not request.get("tools")


def chunk(request: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body: dict[str, Any] = {
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.get("model", MODEL),
        "choices": [choice],
    }
    if finish:
        body["usage"] = USAGE
    return f"data: {json.dumps(body)}\n\n"


def stream(exchange: Exchange, request: dict[str, Any], reply: Text | ToolUse) -> None:
    if not exchange.write(chunk(request, {"role": "assistant", "content": ""})):
        return
    texts = reply.deltas if isinstance(reply, Text) else (reply.preamble,) * bool(reply.preamble)
    for part in texts:
        if not exchange.write(chunk(request, {"content": part})):
            return
        if isinstance(reply, Text) and reply.pause:
            time.sleep(reply.pause)
    if isinstance(reply, ToolUse):
        exchange.write(chunk(request, {"tool_calls": [call(reply, index=0)]}))
    finish = "tool_calls" if isinstance(reply, ToolUse) else "stop"
    exchange.write(chunk(request, {}, finish))
    exchange.write("data: [DONE]\n\n")


def call(reply: ToolUse, **index: int) -> dict[str, Any]:
    function = {"name": reply.name, "arguments": json.dumps(reply.arguments)}
    return {**index, "id": reply.call_id, "type": "function", "function": function}


def whole(request: dict[str, Any], reply: Text | ToolUse) -> dict[str, Any]:
    """The same reply, not streamed (a request without `stream`)."""
    if isinstance(reply, Text):
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    else:
        message = {"role": "assistant", "content": reply.preamble, "tool_calls": [call(reply)]}
    finish = "tool_calls" if isinstance(reply, ToolUse) else "stop"
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", MODEL),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": USAGE,
    }
