"""Recordings no agent made (layer: test data): a conversation of a newer peer, one per edition,
holding what the pinned schema lacks the way the field's agents send it (fields it does not
name, variants of its open unions it does not know, a removed field, an update kind it has no
name for, `_`-prefixed and unknown methods), and one message the schema refuses. The tolerance
tests replay them through every runtime as they replay the field's recordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "s1"

Frames = list[tuple[str, Any]]
"""(direction, message): a message is a JSON object, or a JSON-RPC batch (a list of them)."""


def write(frames: Frames, path: Path) -> Path:
    """`frames` as a recording (tests/field recording format)."""
    lines = [{"acpTrace": 1, "program": ["probe"], "started": "2026-12-02T00:00:00Z"}]
    lines += [{"t": 0.0, "dir": d, "json": message} for d, message in frames]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def call(id_: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def answer(id_: int, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def update(fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    params = {"sessionId": SESSION, "update": fields}
    return ("received", {"jsonrpc": "2.0", "method": "session/update", "params": params})


def text(words: str, **more: Any) -> dict[str, Any]:
    return {"type": "text", "text": words, **more}


UNKNOWN_UPDATE = {"sessionUpdate": "teleport_update", "where": "mars"}
"""An update kind no edition names: logged by the client state, never an error."""


def newer_v1() -> Frames:
    return [
        ("sent", call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})),
        (
            "received",
            answer(
                1,
                {
                    "protocolVersion": 1,
                    "agentCapabilities": {"loadSession": True, "hologram": {"depth": 3}},
                    "authMethods": [  # codex-acp 0.16.0's removed `env_var` type, and a new one
                        {"id": "k", "name": "Key", "type": "env_var", "vars": [{"name": "K"}]},
                        {"id": "x", "name": "X", "type": "hologram"},
                    ],
                    "newTopLevel": True,
                },
            ),
        ),
        ("sent", call(2, "session/new", {"cwd": "/tmp", "mcpServers": []})),
        (  # codex-acp 2.6.0 and gemini-cli answer `models`, a field the schema removed
            "received",
            answer(2, {"sessionId": SESSION, "models": {"currentModelId": "m"}}),
        ),
        ("received", {"jsonrpc": "2.0", "method": "_auth/status_update", "params": {}}),
        ("sent", call(3, "session/prompt", {"sessionId": SESSION, "prompt": [text("hi")]})),
        update({"sessionUpdate": "agent_message_chunk", "content": text("Hel", extra=1)}),
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "hologram"}}),
        update({"sessionUpdate": "agent_message_chunk", "content": text("lo"), "newField": [1]}),
        update(UNKNOWN_UPDATE),
        update(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Read",
                "kind": "teleport",  # x-deserialize-default-on-error: dropped, nothing else
                "status": "pending",
                "content": [{"type": "gizmo", "size": 2}],
                "locations": [{"path": "/a", "column": 3}],
            }
        ),
        update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        update(
            {
                "sessionUpdate": "plan",
                "entries": [{"content": "a", "priority": "high", "status": "pending", "eta": 5}],
            }
        ),
        ("received", call(9, "mystery/method", {})),
        ("sent", {"jsonrpc": "2.0", "id": 9, "error": {"code": -32601, "message": "no"}}),
        ("received", answer(3, {"stopReason": "end_turn", "newStat": {"a": 1}})),
        # A JSON-RPC batch each way: every message in it is decoded as one of its own.
        ("sent", [call(4, "session/set_mode", {"sessionId": SESSION, "modeId": "ask"})]),
        ("received", [answer(4, {"extra": 1})]),
    ]


def newer_v2() -> Frames:
    return [
        (
            "sent",
            call(1, "initialize", {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}),
        ),
        (
            "received",
            answer(
                1,
                {
                    "protocolVersion": 2,
                    "info": {"name": "a", "version": "9", "homepage": "h"},
                    "capabilities": {"session": {"fork": {}}, "providers": {}},
                },
            ),
        ),
        ("sent", call(2, "session/new", {"cwd": "/tmp"})),
        ("received", answer(2, {"sessionId": SESSION, "models": {"currentModelId": "m"}})),
        ("received", {"jsonrpc": "2.0", "method": "_auth/status_update", "params": {}}),
        ("sent", call(3, "session/prompt", {"sessionId": SESSION, "prompt": [text("hi")]})),
        update({"sessionUpdate": "user_message", "messageId": "u1", "content": [text("hi")]}),
        ("received", answer(3, {"messageId": "u1", "queued": False})),
        update({"sessionUpdate": "state_update", "state": "running", "background": []}),
        update({"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text("Hel")}),
        update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": {"type": "hologram", "depth": 1},
            }
        ),
        update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": text("lo"),
                "newField": [1],
            }
        ),
        update(UNKNOWN_UPDATE),
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "title": "Read",
                "kind": "read",
                "status": "pending",
                "content": [{"type": "gizmo", "size": 2}],
            }
        ),
        update(
            {
                "sessionUpdate": "plan_update",
                "plan": {
                    "type": "items",
                    "planId": "p",
                    "entries": [{"content": "a", "priority": "low", "status": "pending", "eta": 1}],
                },
            }
        ),
        update({"sessionUpdate": "plan_update", "plan": {"type": "gantt", "planId": "q", "w": 1}}),
        update({"sessionUpdate": "usage_update", "used": 5, "size": 10, "burst": 1}),
        update({"sessionUpdate": "notice", "severity": "info", "title": "t", "glow": True}),
        ("received", call(9, "mystery/method", {})),
        ("sent", {"jsonrpc": "2.0", "id": 9, "error": {"code": -32601, "message": "no"}}),
        update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
    ]


def refused_v1() -> tuple[Frames, int, str]:
    """A conversation with one message the schema refuses: its frame and the pointer."""
    frames = newer_v1()[:6]
    frames.append(update({"sessionUpdate": "tool_call_update", "status": "completed"}))
    return frames, len(frames) - 1, "/params/update/toolCallId"
