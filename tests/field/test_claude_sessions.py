"""A conversation with claude-agent-acp 0.101.0 comes back in a new process of the agent, through
our typed Python clients (acp_protocol.v1.client, acp_protocol.v2.client): v1 `session/load`
(it advertises `loadSession`) replays the conversation as updates before its answer, and
`session/resume` (it advertises `sessionCapabilities.resume`) brings it back without them; v2
`session/resume` with `replayFrom: {"type": "start"}` replays it ("the Agent MUST replay all
retained conversation history before responding"). Either way the next turn's model request
carries the earlier turn, which is what the mock answered then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp_protocol.v2 import builders
from acp_protocol.v2 import client as v2_client
from acp_protocol.v2 import models as v2

from tests.field.agents import claude_command, claude_offline, wait_for_no_survivors
from tests.field.mocks import anthropic
from tests.field.mocks.script import Script, words
from tests.field.mocks.server import serve
from tests.field.sessions import FIRST, FIRST_ANSWER, SECOND, recorded, text_of, v1_turn


class Updates2(v2_client.Client):
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    async def session_update(self, params: v2.UpdateSessionNotification, ctx: Any) -> None:
        self.updates.append(params.to_wire()["update"])


def model_saw(script: Script, text: str) -> bool:
    """Whether the latest model request carries `text` in its conversation."""
    return text in str(script.requests[-1]["messages"])


@pytest.mark.parametrize("how", ["load", "resume"])
async def test_v1_a_conversation_comes_back_in_a_new_process(
    how: str, tmp_path: Path, recording: Path
) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    offline = claude_offline(tmp_path / "home")
    script = Script([words(FIRST_ANSWER), words("It was zebra.")])
    with serve(anthropic.responder(script)) as url:
        offline.env[offline.mock_variable] = url
        first = recording.with_suffix(".first.jsonl")
        session_id, _, init = await v1_turn(
            recorded(claude_command(), first), offline.env, cwd, None, how
        )
        capabilities = init["agentCapabilities"]
        assert (
            capabilities["loadSession"] is True and "resume" in capabilities["sessionCapabilities"]
        )
        _, replayed, _ = await v1_turn(
            recorded(claude_command(), recording), offline.env, cwd, session_id, how
        )
    if how == "load":
        # "session/load replays previous conversation history before responding" (the v2
        # session-resume RFD, describing v1).
        assert FIRST in text_of(replayed, "user_message_chunk")
        assert FIRST_ANSWER in text_of(replayed, "agent_message_chunk")
    else:
        assert text_of(replayed, "agent_message_chunk") == ""
    assert model_saw(script, FIRST) and model_saw(script, FIRST_ANSWER)
    assert wait_for_no_survivors(offline.marker) == []


async def v2_turn(
    agent: tuple[str, ...], env: dict[str, str], cwd: Path, resume: str | None
) -> tuple[str, list[dict[str, Any]]]:
    client = Updates2()
    async with v2_client.spawn_agent(client, *agent, env=env, cwd=str(cwd)) as connection:
        peer = connection.agent
        init = v2.InitializeRequest.model_validate(
            {"protocolVersion": 2, "info": {"name": "field", "version": "0"}}
        )
        answer = await peer.initialize(init)
        assert answer.protocol_version == 2
        if resume is None:
            new = v2.NewSessionRequest.model_validate({"cwd": str(cwd), "mcpServers": []})
            session_id, prompt = (await peer.session_new(new)).session_id, FIRST
        else:
            request = v2.ResumeSessionRequest.model_validate(
                {"sessionId": resume, "cwd": str(cwd), "replayFrom": {"type": "start"}}
            )
            await peer.session_resume(request)
            session_id, prompt = resume, SECOND
        before = list(client.updates)
        view = connection.session(session_id)
        message_id = await view.prompt([builders.content_block.text(prompt)])
        assert (await view.idle(message_id)).stop_reason == "end_turn"
    return session_id, before


async def test_v2_resume_from_the_start_replays_the_conversation_in_a_new_process(
    tmp_path: Path, recording: Path
) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    offline = claude_offline(tmp_path / "home")
    script = Script([words(FIRST_ANSWER), words("It was zebra.")])
    with serve(anthropic.responder(script)) as url:
        offline.env[offline.mock_variable] = url
        first = recording.with_suffix(".first.jsonl")
        session_id, _ = await v2_turn(recorded(claude_command(), first), offline.env, cwd, None)
        _, replayed_updates = await v2_turn(
            recorded(claude_command(), recording), offline.env, cwd, session_id
        )
    assert FIRST_ANSWER in text_of(replayed_updates, "agent_message_chunk"), replayed_updates
    assert model_saw(script, FIRST) and model_saw(script, FIRST_ANSWER)
    assert wait_for_no_survivors(offline.marker) == []
