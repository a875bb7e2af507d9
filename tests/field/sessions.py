"""A conversation brought back in a new process of an agent, through our typed v1 client: one
process makes a session and runs a turn; another loads or resumes it and runs the next. Shared by
every agent's load/resume test (claude, codex, gemini, opencode, fast-agent, mistral-vibe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_protocol.v1 import client as v1_client
from acp_protocol.v1 import models as v1

from tests.field.turns import RECORDER

FIRST = "Remember the word zebra."
FIRST_ANSWER = "I will remember zebra."
SECOND = "Which word was it?"


class Updates(v1_client.Client):
    """A typed v1 client that keeps every session update in its wire form."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    async def session_update(self, params: v1.SessionNotification, ctx: Any) -> None:
        self.updates.append(params.to_wire()["update"])


def recorded(agent: tuple[str, ...], recording: Path) -> tuple[str, ...]:
    """`agent` started through our recorder, writing `recording`."""
    return (*RECORDER, "--out", str(recording), "--", *agent)


def text_of(updates: list[dict[str, Any]], kind: str) -> str:
    """The text of the `kind` chunks among `updates`, in order."""
    return "".join(
        u["content"].get("text", "")
        for u in updates
        if u.get("sessionUpdate") == kind and isinstance(u.get("content"), dict)
    )


async def v1_turn(
    agent: tuple[str, ...],
    env: dict[str, str],
    cwd: Path,
    back: str | None,
    how: str,
    *,
    prompt: str | None = None,
    capabilities: v1.ClientCapabilities | None = None,
    client: Updates | None = None,
) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """One process of the agent: a new session (`back` None), or session `back` brought back by
    `how` (`load` / `resume`); then one turn of `prompt` (default FIRST for a new session, SECOND
    for one brought back). Its session id, the updates that came before the turn, and the
    agent's `initialize` answer."""
    client = client or Updates()
    async with v1_client.spawn_agent(client, *agent, env=env, cwd=str(cwd)) as connection:
        peer = connection.agent
        init = await peer.initialize(
            v1.InitializeRequest(protocol_version=1)
            if capabilities is None
            else v1.InitializeRequest(protocol_version=1, client_capabilities=capabilities)
        )
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
        text = prompt if prompt is not None else (FIRST if back is None else SECOND)
        blocks = [v1.ContentBlockText(type="text", text=text)]
        answer = await peer.session_prompt(v1.PromptRequest(session_id=session_id, prompt=blocks))
        assert answer.stop_reason == "end_turn", answer
    return session_id, before, init.to_wire()
