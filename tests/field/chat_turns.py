"""What the field's turns against the Chat Completions mock share (layer: test support): the
clients that drive them (the v1 starter clients in Python, TypeScript and Go, and the Python typed
example client, examples/client.py), the model's script (read notes.txt, write out.txt, say so; a
long answer to cancel), and how a turn is judged from its recording (stop reason, the permission
asked and chosen, whether the model got the file's text). Used by test_opencode_turns.py and
test_mistral_vibe_turns.py; a v1-only view: neither agent negotiates v2."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.field.mocks.script import Script, ToolUse, words
from tests.field.turns import Turn
from tests.paths import ROOT
from tests.starters.builds import Starters

CLIENTS = ("python", "typescript", "go", "example")
"""The v1 starter clients of each language, and the typed example client (`example`)."""
EXAMPLE = (sys.executable, str(ROOT / "examples" / "client.py"))
NOTES = "the secret is 42\n"
WRITTEN = "a line the model wrote\n"
CLOSING = "I read the secret and wrote out.txt for you."
PROMPT = "read notes.txt and write out.txt"
LONG = words(" ".join(f"word{n}" for n in range(400)), pause=0.05)


def client_command(starters: Starters, client: str) -> tuple[str, ...]:
    return EXAMPLE if client == "example" else starters[client, "v1", "client"].command


def read_then_write(cwd: Path, read: ToolUse, write: ToolUse) -> Script:
    """The model reads (`read`), then writes out.txt (`write`, after a few words), then says so."""
    return Script([read, write, words(CLOSING)])


def workspace(tmp_path: Path) -> Path:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "notes.txt").write_text(NOTES)
    return cwd


def stop_reason(turn: Turn) -> str | None:
    """The stop reason of the (one) prompt's answer."""
    (prompt,) = turn.sent("session/prompt")
    answer = turn.answer_to(prompt, "received")
    return (answer.get("result") or {}).get("stopReason")


def negotiated(turn: Turn) -> int:
    (initialize,) = turn.sent("initialize")
    return int(turn.answer_to(initialize, "received")["result"]["protocolVersion"])


def model_got(script: Script, text: str) -> bool:
    """Whether a tool's result the agent handed the model (a `tool` message) holds `text`."""
    return any(
        text in str(message.get("content"))
        for request in script.requests
        for message in request.get("messages") or []
        if message.get("role") == "tool"
    )


def chosen(turn: Turn, asked: dict[str, Any]) -> tuple[str, str]:
    """The client's answer to a permission request: (outcome, the chosen option's kind)."""
    outcome = turn.answer_to(asked, "sent")["result"]["outcome"]
    kinds = {o["optionId"]: o["kind"] for o in asked["params"]["options"]}
    return outcome["outcome"], kinds.get(outcome.get("optionId"), "")


def paths_of(turn: Turn, tool_call_id: str) -> set[str]:
    """Every path the updates of tool call `tool_call_id` name (its locations, its diffs)."""
    found: set[str] = set()
    for update in turn.updates():
        if update.get("toolCallId") != tool_call_id:
            continue
        found |= {str(place.get("path")) for place in update.get("locations") or []}
        found |= {str(c.get("path")) for c in update.get("content") or [] if c.get("path")}
    return found


def statuses(turn: Turn, tool_call_id: str) -> list[str]:
    return [
        u["status"]
        for u in turn.updates()
        if u.get("toolCallId") == tool_call_id and u.get("status")
    ]


def said(turn: Turn) -> str:
    """The agent's message text, in order (its `agent_message_chunk`s)."""
    return "".join(
        u["content"].get("text", "")
        for u in turn.updates()
        if u.get("sessionUpdate") == "agent_message_chunk" and isinstance(u.get("content"), dict)
    )
