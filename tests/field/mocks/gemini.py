"""A mock of the Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, answered
as server-sent events, each `data:` one GenerateContentResponse with a candidate's parts), for
gemini-cli (`GOOGLE_GEMINI_BASE_URL`). A text reply is one chunk per delta, then a last chunk with
`finishReason: STOP` and the usage; a tool use is one `functionCall` part. `countTokens` is
answered with a count; a non-streamed `generateContent` (the agent's own side requests, such as
its model router's JSON) with the script's fallback text; any other path with `{}`."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.field.mocks.script import Script, Text, ToolUse
from tests.field.mocks.server import Exchange, Respond

USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def chunk(parts: list[dict[str, Any]], finish: str | None = None) -> str:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    response: dict[str, Any] = {"candidates": [candidate]}
    if finish:
        candidate["finishReason"] = finish
        response["usageMetadata"] = USAGE
    return f"data: {json.dumps(response)}\r\n\r\n"


def responder(script: Script) -> Respond:
    def respond(exchange: Exchange) -> None:
        path = exchange.path.split("?", 1)[0]
        if exchange.method != "POST" or ":" not in path:
            exchange.send_json({})
            return
        action = path.rsplit(":", 1)[1]
        if action == "countTokens":
            exchange.send_json({"totalTokens": 10})
            return
        request = exchange.json()
        if action == "generateContent":
            exchange.send_json(whole(script.fallback))
            return
        if action != "streamGenerateContent":
            exchange.send_json({})
            return
        script.requests.append(request)
        exchange.start_stream()
        stream(exchange, script.reply(answered(request)))

    return respond


def answered(request: dict[str, Any]) -> int:
    """How many answers of the model the conversation holds."""
    return sum(1 for c in request.get("contents", []) if c.get("role") == "model")


def stream(exchange: Exchange, reply: Text | ToolUse) -> None:
    if isinstance(reply, ToolUse):
        call: dict[str, Any] = {"functionCall": {"name": reply.name, "args": reply.arguments}}
        parts = [{"text": reply.preamble}, call] if reply.preamble else [call]
        exchange.write(chunk(parts, "STOP"))
        return
    for part in reply.deltas:
        if not exchange.write(chunk([{"text": part}])):
            return
        if reply.pause:
            time.sleep(reply.pause)
    exchange.write(chunk([{"text": ""}], "STOP"))


def whole(reply: Text | ToolUse) -> dict[str, Any]:
    """A reply, not streamed (`generateContent`)."""
    text = reply.text if isinstance(reply, Text) else ""
    candidate = {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
    return {"candidates": [candidate], "usageMetadata": USAGE}
