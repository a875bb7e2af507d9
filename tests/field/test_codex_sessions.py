"""codex-acp 2.6.0 beyond a single turn, through our typed Python v1 client
(acp_protocol.v1.client), offline against the OpenAI Responses mock. Only with `--field`.

- A conversation comes back in a new process of the agent: v1 `session/load` (it advertises
  `loadSession`) replays it as updates before its answer; `session/resume` (it advertises
  `sessionCapabilities.resume`) brings it back without them. Either way the next model request
  carries the earlier turn. (In v2 it advertises neither resume nor load: nothing to try.)
- A shell command: the client advertises `terminal` and the file service, yet Codex runs the
  command itself (no `terminal/*`, no `fs/*` request): the command asks permission (it writes
  outside the read-only sandbox), runs once allowed, and its output reaches the model; the tool
  call shows a `terminal` content block naming a terminal the client never created."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.v1 import models as v1

from tests.field.agents import wait_for_no_survivors
from tests.field.codex import codex_offline, command
from tests.field.mocks import openai_responses
from tests.field.mocks.script import Script, ToolUse, words
from tests.field.mocks.server import serve
from tests.field.sessions import FIRST, FIRST_ANSWER, Updates, recorded, text_of, v1_turn
from tests.field.turns import read_recording

pytestmark = pytest.mark.usefixtures("needs_field")

SHELL = (
    'text(await tools.exec_command({cmd: "echo made by the shell > made.txt && echo done",'
    ' sandbox_permissions: "require_escalated", justification: "write made.txt"}));'
)


class Allowing(Updates):
    """Keeps every session update in its wire form; allows what it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[dict[str, Any]] = []

    async def session_request_permission(
        self, params: v1.RequestPermissionRequest, ctx: Any
    ) -> v1.RequestPermissionResponse:
        self.asked.append(params.to_wire())
        allow = next(o for o in params.options if o.kind == "allow_once")
        selected = v1.RequestPermissionOutcomeSelected(
            outcome="selected", option_id=allow.option_id
        )
        return v1.RequestPermissionResponse(outcome=selected)


def model_saw(script: Script, text: str) -> bool:
    """Whether the latest model request carries `text` in its conversation."""
    return text in json.dumps(script.requests[-1]["input"])


@pytest.mark.field_steps("load/resume")
@pytest.mark.parametrize("how", ["load", "resume"])
async def test_v1_a_conversation_comes_back_in_a_new_process(
    how: str, tmp_path: Path, recording: Path
) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    offline = codex_offline(tmp_path / "home")
    script = Script([words(FIRST_ANSWER), words("It was zebra.")])
    with serve(openai_responses.responder(script)) as url:
        offline.env[offline.mock_variable] = url
        first = recording.with_suffix(".first.jsonl")
        session_id, _, init = await v1_turn(recorded(command(), first), offline.env, cwd, None, how)
        capabilities = init["agentCapabilities"]
        assert capabilities["loadSession"] is True
        assert "resume" in capabilities["sessionCapabilities"]
        _, replayed, _ = await v1_turn(
            recorded(command(), recording), offline.env, cwd, session_id, how
        )
    if how == "load":
        # "session/load replays previous conversation history before responding" (the v2
        # session-resume RFD, describing v1).
        assert FIRST in text_of(replayed, "user_message_chunk"), replayed
        assert FIRST_ANSWER in text_of(replayed, "agent_message_chunk"), replayed
    else:
        assert text_of(replayed, "agent_message_chunk") == ""
    assert model_saw(script, FIRST) and model_saw(script, FIRST_ANSWER)
    assert wait_for_no_survivors(offline.marker) == []


@pytest.mark.field_steps("write allowed")
async def test_a_shell_command_runs_in_codex_not_in_the_clients_terminal(
    tmp_path: Path, recording: Path
) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    offline = codex_offline(tmp_path / "home")
    script = Script([ToolUse("exec", {"input": SHELL}, "call_shell"), words("Made it.")])
    capabilities = v1.ClientCapabilities(
        fs=v1.FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
    )
    client = Allowing()
    with serve(openai_responses.responder(script)) as url:
        offline.env[offline.mock_variable] = url
        await v1_turn(
            recorded(command(), recording),
            offline.env,
            cwd,
            None,
            "new",
            capabilities=capabilities,
            client=client,
        )
    assert (cwd / "made.txt").read_text() == "made by the shell\n"
    # It asked first: an `execute` tool call, allowed once.
    (asked,) = client.asked
    assert asked["toolCall"]["kind"] == "execute"
    assert "done" in json.dumps(script.requests[-1]["input"])
    frames = read_recording(recording)
    called = [
        f["json"]["method"]
        for f in frames
        if f.get("dir") == "received" and "method" in (f.get("json") or {})
    ]
    assert not [m for m in called if m.startswith(("terminal/", "fs/"))], called
    # The tool call names a terminal nobody created (`terminal/create` was never sent).
    shown = [
        block
        for u in client.updates
        if u.get("sessionUpdate") == "tool_call"
        for block in u.get("content") or []
        if block.get("type") == "terminal"
    ]
    assert shown and shown[0]["terminalId"] == asked["toolCall"]["toolCallId"]
    assert wait_for_no_survivors(offline.marker) == []
