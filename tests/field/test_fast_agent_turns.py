"""fast-agent-mcp 0.10.48 (PyPI, `fast-agent-acp --model passthrough`, tests/field/locks/fast-agent,
its own virtual environment), a production agent nobody here wrote, through whole turns offline
with no model mock at all: its `passthrough` model echoes the prompt, and a prompt
`***CALL_TOOL NAME {ARGUMENTS}` makes it call a tool. Driven by our starter clients in Python,
TypeScript and Go (v1) and examples/client.py, started through our recorder.

What it does with a client that offers the file service: its `read_text_file` and
`write_text_file` tools ask the client's permission (reads too: allow once / always, reject once
/ never), then go through `fs/read_text_file` / `fs/write_text_file`, inside our allowed root.
It keeps its sessions under the working folder (`.fast-agent/sessions`) and advertises
`loadSession`, `sessionCapabilities.list` and `resume`. To `initialize {protocolVersion: 2}` it
answers `protocolVersion: 2` with a v1 body (`agentInfo`, untagged `authMethods`): each of our v2
clients refuses that answer in one line, before `session/new` (a tolerance finding, not a turn).
There is no long answer to cancel: the passthrough model answers at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.field import fast_agent
from tests.field.agents import wait_for_no_survivors
from tests.field.mocks import gemini as unused_mock
from tests.field.mocks.script import Script
from tests.field.sessions import FIRST, recorded, text_of, v1_turn
from tests.field.turns import Turn, run_turn
from tests.paths import ROOT
from tests.starters.builds import LANGUAGES, Starters

NOTES = "the secret is 42\n"
WRITTEN = "a line the agent wrote\n"
EXAMPLE_CLIENT = (sys.executable, str(ROOT / "examples" / "client.py"))


def call_tool(name: str, **arguments: str) -> str:
    """The prompt that makes the passthrough model call a tool."""
    return f"***CALL_TOOL {name} {json.dumps(arguments)}"


def fast_agent_turn(
    client: tuple[str, ...],
    tmp_path: Path,
    recording: Path,
    prompt: str,
    options: tuple[str, ...] = (),
) -> Turn:
    cwd = tmp_path / "work"
    cwd.mkdir(exist_ok=True)
    (cwd / "notes.txt").write_text(NOTES)
    return run_turn(
        (*client, "--prompt", prompt),
        fast_agent.command(),
        fast_agent.fast_agent_offline(tmp_path / "home"),
        unused_mock.responder,
        Script([]),
        cwd,
        recording,
        options,
    )


def starter(starters: Starters, lang: str) -> tuple[str, ...]:
    return starters[lang, "v1", "client"].command


def stop_reason(turn: Turn) -> str:
    (prompt,) = turn.sent("session/prompt")
    return str(turn.answer_to(prompt, "received")["result"]["stopReason"])


def chosen_kind(turn: Turn, asked: dict[str, object]) -> str:
    outcome = turn.answer_to(asked, "sent")["result"]["outcome"]
    params = asked["params"]
    assert isinstance(params, dict)
    return str({o["optionId"]: o["kind"] for o in params["options"]}[outcome["optionId"]])


def tool_statuses(turn: Turn, asked: dict[str, object]) -> list[object]:
    params = asked["params"]
    assert isinstance(params, dict)
    call = params["toolCall"]["toolCallId"]
    return [u.get("status") for u in turn.updates() if u.get("toolCallId") == call]


@pytest.mark.field_steps("words", "read")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_read_asks_then_goes_through_the_client_file_service(
    needs_field: None, starters: Starters, lang: str, tmp_path: Path, recording: Path
) -> None:
    notes = tmp_path / "work" / "notes.txt"
    prompt = call_tool("read_text_file", path=str(notes))
    turn = fast_agent_turn(starter(starters, lang), tmp_path, recording, prompt, ("--approve-all",))
    assert turn.returncode == 0, turn.describe()
    (asked,) = turn.received("session/request_permission")
    assert chosen_kind(turn, asked) == "allow_once"
    (read,) = turn.received("fs/read_text_file")
    assert read["params"]["path"] == str(notes)
    assert turn.answer_to(read, "sent")["result"]["content"] == NOTES
    # The model echoes the tool's result: the words of the file arrive, then the turn ends.
    said = text_of(turn.updates(), "agent_message_chunk")
    assert said.strip() == NOTES.strip() and NOTES.strip() in turn.stdout, turn.describe()
    assert tool_statuses(turn, asked)[-1] == "completed"
    assert stop_reason(turn) == "end_turn"
    assert turn.survivors == []


@pytest.mark.field_steps("write allowed")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_write_the_user_allows_goes_through_the_client_file_service(
    needs_field: None, starters: Starters, lang: str, tmp_path: Path, recording: Path
) -> None:
    out = tmp_path / "work" / "out.txt"
    prompt = call_tool("write_text_file", path=str(out), content=WRITTEN)
    turn = fast_agent_turn(starter(starters, lang), tmp_path, recording, prompt, ("--approve-all",))
    assert turn.returncode == 0, turn.describe()
    (asked,) = turn.received("session/request_permission")
    assert chosen_kind(turn, asked) == "allow_once"
    writes = turn.received("fs/write_text_file")
    assert [w["params"]["path"] for w in writes] == [str(out)]
    assert "result" in turn.answer_to(writes[0], "sent")
    assert out.read_text() == WRITTEN
    assert tool_statuses(turn, asked)[-1] == "completed"
    assert stop_reason(turn) == "end_turn"
    assert turn.survivors == []


@pytest.mark.field_steps("write rejected")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_write_the_user_rejects_is_never_written(
    needs_field: None, starters: Starters, lang: str, tmp_path: Path, recording: Path
) -> None:
    out = tmp_path / "work" / "out.txt"
    prompt = call_tool("write_text_file", path=str(out), content=WRITTEN)
    turn = fast_agent_turn(starter(starters, lang), tmp_path, recording, prompt, ("--deny-all",))
    assert turn.returncode == 0, turn.describe()
    (asked,) = turn.received("session/request_permission")
    assert chosen_kind(turn, asked).startswith("reject")
    assert not turn.received("fs/write_text_file")
    assert not out.exists()
    assert tool_statuses(turn, asked)[-1] == "failed"
    assert stop_reason(turn) == "end_turn"
    assert turn.survivors == []


@pytest.mark.field_steps("words", "write allowed")
def test_the_example_client_hears_the_echo_and_writes_once_allowed(
    needs_field: None, tmp_path: Path, recording: Path
) -> None:
    out = tmp_path / "work" / "out.txt"
    options = (
        "--approve-all",
        "--prompt",
        call_tool("write_text_file", path=str(out), content=WRITTEN),
    )
    turn = fast_agent_turn(EXAMPLE_CLIENT, tmp_path, recording, "one two three four", options)
    assert turn.returncode == 0, turn.describe()
    first, second = turn.sent("session/prompt")
    assert turn.answer_to(first, "received")["result"]["stopReason"] == "end_turn"
    assert text_of(turn.updates(), "agent_message_chunk").startswith("one two three four")
    assert out.read_text() == WRITTEN
    assert turn.answer_to(second, "received")["result"]["stopReason"] == "end_turn"
    assert turn.survivors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_v2_client_refuses_a_v1_body_under_version_2_in_one_line(
    needs_field: None, starters: Starters, lang: str, tmp_path: Path, recording: Path
) -> None:
    """fast-agent echoes the client's `protocolVersion: 2` with a v1 body (`agentInfo`, no
    `info`; `authMethods` without their `type` tag): an answer v2 does not have. Our v2 clients
    decode it strictly and stop before `session/new`, in one line, leaving no process."""
    client = starters[lang, "v2", "client"].command
    turn = fast_agent_turn(client, tmp_path, recording, "hello")
    (initialize,) = turn.sent("initialize")
    answer = turn.answer_to(initialize, "received")["result"]
    assert answer["protocolVersion"] == 2 and "agentInfo" in answer and "info" not in answer
    assert turn.returncode != 0
    assert "info" in turn.stderr and "Traceback" not in turn.stderr, turn.describe()
    assert len(turn.stderr.strip().splitlines()) == 1, turn.describe()
    assert not turn.sent("session/new")
    assert turn.survivors == []


async def test_session_load_brings_the_conversation_back_in_a_new_process(
    needs_field: None, tmp_path: Path, recording: Path
) -> None:
    """It advertises `loadSession`: a new process loads the session from the working folder
    and replays the conversation as updates before answering."""
    cwd = tmp_path / "work"
    cwd.mkdir()
    offline = fast_agent.fast_agent_offline(tmp_path / "home")
    first = recording.with_suffix(".first.jsonl")
    agent = fast_agent.command()
    session_id, _, init = await v1_turn(recorded(agent, first), offline.env, cwd, None, "load")
    assert init["agentCapabilities"]["loadSession"] is True
    _, replayed, _ = await v1_turn(recorded(agent, recording), offline.env, cwd, session_id, "load")
    assert FIRST in text_of(replayed, "user_message_chunk")
    assert FIRST in text_of(replayed, "agent_message_chunk")  # the echo of the first turn
    assert wait_for_no_survivors(offline.marker) == []


def test_the_pinned_agent_is_the_one_these_tests_name() -> None:
    pinned = fast_agent.REQUIREMENTS.read_text()
    assert f"\nfast-agent-mcp=={fast_agent.VERSION} \\" in pinned
    assert "--hash=sha256:" in pinned
