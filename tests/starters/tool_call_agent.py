"""A v2 agent for the starter table that reports a tool call, written as bare JSON-RPC lines (no
SDK, so that what the clients receive is exactly this): `initialize` answered with version 2,
`session/new` with a session, and `session/prompt` answered at insertion with its message id,
then these updates of the session, in order (UPDATES): the prompt's `user_message` echo,
`running`, a `tool_call_update` giving the tool call its title and `in_progress`, a chunk of the
agent's message, a `tool_call_update` with only `completed` (the schema's patch rule: "Omission
leaves the title unchanged"), `idle` with `end_turn`. Any other request is answered -32601; it
exits at the end of its stdin.

Run it: `python tool_call_agent.py` under a v2 client (`client --prompt hi -- python
tool_call_agent.py`)."""

from __future__ import annotations

import json
import sys
from typing import Any

MESSAGE_ID = "prompt-1"
TOOL_CALL_ID = "call-1"
TITLE = "Read notes.txt"
TEXT = "Read it. "
UPDATES: list[dict[str, Any]] = [
    {"sessionUpdate": "state_update", "state": "running"},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": TOOL_CALL_ID,
        "title": TITLE,
        "kind": "read",
        "status": "in_progress",
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "reply-1",
        "content": {"type": "text", "text": TEXT},
    },
    {"sessionUpdate": "tool_call_update", "toolCallId": TOOL_CALL_ID, "status": "completed"},
    {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
]
EXPECTED = f"\n[tool: {TITLE} (in_progress)]\n{TEXT}\n[tool: {TITLE} (completed)]\n"
"""What a starter client prints on stdout from its session's state, before the stop reason."""


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def answer(request: dict[str, Any]) -> None:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        info = {"name": "tool-call-agent", "version": "0.1.0"}
        send({"id": request["id"], "result": {"protocolVersion": 2, "info": info}})
    elif method == "session/new":
        send({"id": request["id"], "result": {"sessionId": "session-1"}})
    elif method == "session/prompt":
        # Answered at insertion (v2): the message id first, then the work's updates.
        send({"id": request["id"], "result": {"messageId": MESSAGE_ID}})
        echo = {
            "sessionUpdate": "user_message",
            "messageId": MESSAGE_ID,
            "content": params["prompt"],
        }
        for update in [echo, *UPDATES]:
            params_out = {"sessionId": params["sessionId"], "update": update}
            send({"method": "session/update", "params": params_out})
    elif "id" in request:
        send({"id": request["id"], "error": {"code": -32601, "message": "Method not found"}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            answer(json.loads(line))


if __name__ == "__main__":
    main()
