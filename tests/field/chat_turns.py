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

from acp_protocol.v1 import client as v1_client
from acp_protocol.v1 import models as v1

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


class Updates(v1_client.Client):
    """A typed v1 client that keeps every session update in its wire form."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    async def session_update(self, params: v1.SessionNotification, ctx: Any) -> None:
        self.updates.append(params.to_wire()["update"])


async def v1_process(
    agent: tuple[str, ...], env: dict[str, str], cwd: Path, prompt: str, back: str | None, how: str
) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """One process of the agent through our typed v1 client: a new session (`back` None), or
    session `back` brought back by `how` (`load` / `resume`); then one turn of `prompt`. Its
    session id, the updates that came before the turn, and the agent's `initialize` answer."""
    client = Updates()
    async with v1_client.spawn_agent(client, *agent, env=env, cwd=str(cwd)) as connection:
        peer = connection.agent
        init = await peer.initialize(v1.InitializeRequest(protocol_version=1))
        if back is None:
            new = await peer.session_new(v1.NewSessionRequest(cwd=str(cwd), mcp_servers=[]))
            session_id = new.session_id
        elif how == "load":
            load = v1.LoadSessionRequest(session_id=back, cwd=str(cwd), mcp_servers=[])
            await peer.session_load(load)
            session_id = back
        else:
            await peer.session_resume(v1.ResumeSessionRequest(session_id=back, cwd=str(cwd)))
            session_id = back
        before = list(client.updates)
        text = [v1.ContentBlockText(type="text", text=prompt)]
        answer = await peer.session_prompt(v1.PromptRequest(session_id=session_id, prompt=text))
        assert answer.stop_reason == "end_turn", answer
    return session_id, before, init.to_wire()


def text_of(updates: list[dict[str, Any]], kind: str) -> str:
    return "".join(
        u["content"].get("text", "")
        for u in updates
        if u.get("sessionUpdate") == kind and isinstance(u.get("content"), dict)
    )
