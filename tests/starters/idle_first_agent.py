"""A v2 agent for the starter table that reports its new session idle at once, as the official
Rust SDK's v2 agents do, written as bare JSON-RPC lines (no SDK, so that what the clients receive
is exactly this): `initialize` answered with version 2; `session/new` answered, then a
`state_update` `idle` with no stop reason; `session/prompt` answered at insertion with
`{"messageId": "m1"}`, then these updates of the session, in order: the prompt's `user_message`
echo `m1`, `running`, eight `agent_message_chunk`s of message `m2` (WORDS), `idle` with
`end_turn`. Any other request is answered -32601; it exits at the end of its stdin.

Run it: `python idle_first_agent.py` under a v2 client (`client --prompt hi -- python
idle_first_agent.py`)."""

from __future__ import annotations

import json
import sys
from typing import Any

PROMPT_ID = "m1"
REPLY_ID = "m2"
WORDS = ["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight "]
EXPECTED = "".join(WORDS)
"""What a starter client prints on stdout from its session's state, before the stop reason."""


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(session_id: str, body: dict[str, Any]) -> None:
    send({"method": "session/update", "params": {"sessionId": session_id, "update": body}})


def answer(request: dict[str, Any]) -> None:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        info = {"name": "idle-first-agent", "version": "0.1.0"}
        send({"id": request["id"], "result": {"protocolVersion": 2, "info": info}})
    elif method == "session/new":
        send({"id": request["id"], "result": {"sessionId": "session-1"}})
        # The new session's state: idle, no work has run (so no stop reason).
        update("session-1", {"sessionUpdate": "state_update", "state": "idle"})
    elif method == "session/prompt":
        session_id = params["sessionId"]
        send({"id": request["id"], "result": {"messageId": PROMPT_ID}})
        echo = {
            "sessionUpdate": "user_message",
            "messageId": PROMPT_ID,
            "content": params["prompt"],
        }
        update(session_id, echo)
        update(session_id, {"sessionUpdate": "state_update", "state": "running"})
        for word in WORDS:
            text = {"type": "text", "text": word}
            chunk = {"sessionUpdate": "agent_message_chunk", "messageId": REPLY_ID, "content": text}
            update(session_id, chunk)
        idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        update(session_id, idle)
    elif "id" in request:
        send({"id": request["id"], "error": {"code": -32601, "message": "Method not found"}})


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            answer(json.loads(line))


if __name__ == "__main__":
    main()
