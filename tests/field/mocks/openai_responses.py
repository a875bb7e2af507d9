"""A mock of the OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events:
response.created, response.output_item.added, response.output_text.delta, response.output_item.done,
response.completed), for codex-acp (its Codex `openai_base_url`). A tool use is a `function_call`
item, or a `custom_tool_call` (free-form `input`, from the ToolUse's `arguments["input"]`) when the
request declares that tool `custom` (Codex's `apply_patch`). Another request (a WebSocket upgrade
of `/v1/responses`, `/v1/models`, …) is answered 404 as the API answers a path it does not serve,
and kept in the script's `elsewhere`."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.field.mocks.script import Script, Text, ToolUse
from tests.field.mocks.server import Exchange, Respond

MODEL_ITEMS = ("message", "function_call", "custom_tool_call", "reasoning", "local_shell_call")
"""The `input` items a model's answer leaves in the conversation."""
USAGE = {
    "input_tokens": 10,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
}


def event(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


def responder(script: Script) -> Respond:
    def respond(exchange: Exchange) -> None:
        path = exchange.path.split("?")[0]
        upgrade = exchange.handler.headers.get("upgrade")
        if exchange.method != "POST" or not path.endswith("/responses") or upgrade:
            script.elsewhere.append(f"{exchange.method} {exchange.path}")
            error = {"message": f"no route {path}", "type": "invalid_request_error"}
            exchange.send_json({"error": error}, status=404)
            return
        request = exchange.json()
        script.requests.append(request)
        exchange.start_stream()
        stream(exchange, request, script.reply(answered(request)), len(script.requests))

    return respond


def answered(request: dict[str, Any]) -> int:
    """How many answers of the model the conversation holds: the runs of model items (text, tool
    calls) between the user's messages and the tools' outputs."""
    runs, inside = 0, False
    for item in request.get("input") or []:
        kind = item.get("type", "message")
        model = kind in MODEL_ITEMS and (kind != "message" or item.get("role") == "assistant")
        runs += model and not inside
        inside = model
    return runs


def tool_kinds(request: dict[str, Any]) -> dict[str, str]:
    """Each declared tool's name and type (`function`, `custom`, …): those of `tools`, and those
    of an `additional_tools` item of the input (Codex's), namespaces opened."""
    declared = list(request.get("tools") or [])
    for item in request.get("input") or []:
        declared += item.get("tools") or [] if item.get("type") == "additional_tools" else []
    kinds: dict[str, str] = {}
    while declared:
        tool = declared.pop()
        declared += tool.get("tools") or [] if tool.get("type") == "namespace" else []
        kinds[tool.get("name", "")] = tool.get("type", "")
    return kinds


def stream(exchange: Exchange, request: dict[str, Any], reply: Text | ToolUse, number: int) -> None:
    response = {"id": f"resp_{number:04d}", "object": "response", "model": request.get("model")}
    if not exchange.write(
        event({"type": "response.created", "response": {**response, "status": "in_progress"}})
    ):
        return
    output: list[dict[str, Any]] = []
    preamble = reply.preamble if isinstance(reply, ToolUse) else ""
    if preamble or isinstance(reply, Text):
        text = Text((preamble,)) if preamble else reply
        assert isinstance(text, Text)
        item = message(exchange, len(output), f"msg_{number:04d}", text)
        if item is None:
            return
        output.append(item)
    if isinstance(reply, ToolUse):
        call = tool_call(reply, tool_kinds(request).get(reply.name, "function"), number)
        added = {**call, "status": "in_progress"}
        exchange.write(
            event(
                {"type": "response.output_item.added", "output_index": len(output), "item": added}
            )
        )
        exchange.write(
            event({"type": "response.output_item.done", "output_index": len(output), "item": call})
        )
        output.append(call)
    completed = {**response, "status": "completed", "output": output, "usage": USAGE}
    exchange.write(event({"type": "response.completed", "response": completed}))


def message(exchange: Exchange, index: int, item_id: str, reply: Text) -> dict[str, Any] | None:
    """Stream one assistant message; its finished item, or None once the agent hung up."""
    empty = {"id": item_id, "type": "message", "role": "assistant", "content": []}
    if not exchange.write(
        event(
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": {**empty, "status": "in_progress"},
            }
        )
    ):
        return None
    for part in reply.deltas:
        delta = {
            "type": "response.output_text.delta",
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "delta": part,
        }
        if not exchange.write(event(delta)):
            return None
        if reply.pause:
            time.sleep(reply.pause)
    content = [{"type": "output_text", "text": reply.text, "annotations": []}]
    item = {**empty, "status": "completed", "content": content}
    done = {"type": "response.output_item.done", "output_index": index, "item": item}
    return item if exchange.write(event(done)) else None


def tool_call(reply: ToolUse, kind: str, number: int) -> dict[str, Any]:
    """The call item: free-form `input` for a `custom` tool, JSON `arguments` for a function."""
    head = {"id": f"fc_{number:04d}", "call_id": reply.call_id, "name": reply.name}
    if kind == "custom":
        return {**head, "type": "custom_tool_call", "input": reply.arguments["input"]}
    return {**head, "type": "function_call", "arguments": json.dumps(reply.arguments)}
