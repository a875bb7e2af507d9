"""opencode 1.18.33 (`opencode acp`, npm opencode-ai, tests/field/locks/opencode), a production
agent nobody here wrote, through whole v1 turns offline (it answers `protocolVersion: 1` to a v2
client), driven by our v1 starter clients in Python, TypeScript and Go and by the typed example
client, against the Chat Completions mock (tests/field/mocks/chat_completions.py) as a custom
OpenAI-compatible provider. The agent is started through our recorder.

The model reads notes.txt (opencode's `read` tool: opencode reads it itself), then writes out.txt
(`write`: its configuration makes `edit`, which covers writes, ask the client's permission; once
allowed, opencode writes through the client's `fs/write_text_file`), then says so. Rejected, the
file is never written. A long answer is interrupted with Ctrl-C and ends `cancelled`. A
conversation comes back in a new process by `session/load` (advertised) and `session/resume`
(`sessionCapabilities.resume`). Nothing of the agent survives a run; nothing reaches the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.field import chat_turns as chat
from tests.field import checks, opencode
from tests.field.agents import wait_for_no_survivors
from tests.field.mocks import chat_completions
from tests.field.mocks.script import Script, ToolUse, words
from tests.field.mocks.server import serve
from tests.field.sessions import recorded, text_of, v1_turn
from tests.field.turns import Turn, run_turn
from tests.starters.builds import LANGUAGES, Starters

pytestmark = pytest.mark.usefixtures("needs_field")


def script(cwd: Path) -> Script:
    return chat.read_then_write(
        cwd,
        ToolUse("read", {"filePath": str(cwd / "notes.txt")}, "call_read"),
        ToolUse(
            "write",
            {"filePath": str(cwd / "out.txt"), "content": chat.WRITTEN},
            "call_write",
            preamble="Now I write the file.",
        ),
    )


def turn(
    client: tuple[str, ...],
    tmp_path: Path,
    recording: Path,
    script: Script,
    options: tuple[str, ...],
    **interrupt: object,
) -> Turn:
    cwd = tmp_path / "work"
    return run_turn(
        (*client, "--prompt", chat.PROMPT),
        opencode.command(),
        opencode.opencode_offline(tmp_path / "home"),
        chat_completions.responder,
        script,
        cwd,
        recording,
        options,
        **interrupt,  # type: ignore[arg-type]
    )


@pytest.mark.field_steps("words", "read", "write allowed")
@pytest.mark.parametrize("client", chat.CLIENTS)
def test_a_turn_reads_a_file_and_writes_one_through_the_client_once_allowed(
    starters: Starters, client: str, tmp_path: Path, recording: Path
) -> None:
    cwd = chat.workspace(tmp_path)
    model = script(cwd)
    done = turn(
        chat.client_command(starters, client), tmp_path, recording, model, ("--approve-all",)
    )
    assert done.returncode == 0, done.describe()
    assert chat.negotiated(done) == 1
    # The words arrive in order; the turn ends as the model's last answer implies.
    assert chat.CLOSING in done.stdout and chat.said(done).endswith(chat.CLOSING), done.describe()
    assert chat.stop_reason(done) == "end_turn"
    # The model's `read` went through: a tool result of the next request holds the file's text.
    assert chat.model_got(model, "the secret is 42"), "the read's result never reached the model"
    assert chat.statuses(done, "call_read")[-1] == "completed"
    # The write asked first, about the model's write; the client allowed it once.
    (asked,) = done.received("session/request_permission")
    assert asked["params"]["toolCall"]["toolCallId"] == "call_write"
    assert chat.chosen(done, asked) == ("selected", "allow_once")
    # opencode wrote through the client's file service, inside the client's root.
    (written,) = done.received("fs/write_text_file")
    assert written["params"]["path"] == str(cwd / "out.txt")
    assert "result" in done.answer_to(written, "sent")
    assert (cwd / "out.txt").read_text() == chat.WRITTEN
    assert done.received("fs/read_text_file") == []  # it reads files itself
    assert done.survivors == []


@pytest.mark.field_steps("write rejected")
@pytest.mark.parametrize("client", chat.CLIENTS[:3])
def test_a_write_the_user_rejects_is_never_written(
    starters: Starters, client: str, tmp_path: Path, recording: Path
) -> None:
    cwd = chat.workspace(tmp_path)
    model = script(cwd)
    done = turn(chat.client_command(starters, client), tmp_path, recording, model, ("--deny-all",))
    assert done.returncode == 0, done.describe()
    (asked,) = done.received("session/request_permission")
    outcome, kind = chat.chosen(done, asked)
    assert kind.startswith("reject"), (outcome, kind)
    assert not (cwd / "out.txt").exists()
    assert done.received("fs/write_text_file") == []
    assert chat.statuses(done, "call_write")[-1] == "failed"
    assert chat.stop_reason(done) is not None
    assert done.survivors == []


@pytest.mark.parametrize("client", chat.CLIENTS)
def test_ctrl_c_during_a_long_answer_ends_the_turn_cancelled(
    starters: Starters, client: str, tmp_path: Path, recording: Path
) -> None:
    chat.workspace(tmp_path)
    done = turn(
        chat.client_command(starters, client),
        tmp_path,
        recording,
        Script([chat.LONG]),
        (),
        interrupt_when=lambda out: "word5" in out,
    )
    checks.cancelled_by_ctrl_c(done, chat.stop_reason(done))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_v2_client_is_answered_protocol_1_and_says_so(
    starters: Starters, lang: str, tmp_path: Path, recording: Path
) -> None:
    chat.workspace(tmp_path)
    client = starters[lang, "v2", "client"].command
    done = turn(client, tmp_path, recording, Script([words("unused")]), ())
    checks.refused_as_version_1(done)


FIRST, FIRST_ANSWER, SECOND = "Remember the word zebra.", "I will remember zebra.", "Which word?"


@pytest.mark.parametrize("how", ["load", "resume"])
async def test_a_conversation_comes_back_in_a_new_process(
    how: str, tmp_path: Path, recording: Path
) -> None:
    cwd = chat.workspace(tmp_path)
    offline = opencode.opencode_offline(tmp_path / "home")
    model = Script([words(FIRST_ANSWER), words("It was zebra.")])
    first = recording.with_suffix(".first.jsonl")
    with serve(chat_completions.responder(model)) as url:
        offline.env[offline.mock_variable] = url
        agent = recorded(opencode.command(), first)
        session_id, _, init = await v1_turn(agent, offline.env, cwd, None, how, prompt=FIRST)
        capabilities = init["agentCapabilities"]
        assert capabilities["loadSession"] is True
        assert "resume" in capabilities["sessionCapabilities"]
        agent = recorded(opencode.command(), recording)
        _, replayed, _ = await v1_turn(agent, offline.env, cwd, session_id, how, prompt=SECOND)
    if how == "load":
        # "session/load replays previous conversation history before responding" (the v2
        # session-resume RFD, describing v1).
        assert FIRST in text_of(replayed, "user_message_chunk"), replayed
        assert FIRST_ANSWER in text_of(replayed, "agent_message_chunk"), replayed
    else:
        assert text_of(replayed, "agent_message_chunk") == ""
    turns = [r for r in model.requests if not chat_completions.side_request(r)]
    assert FIRST in str(turns[-1]["messages"]) and FIRST_ANSWER in str(turns[-1]["messages"])
    assert wait_for_no_survivors(offline.marker) == []


def test_the_pinned_agent_is_the_one_these_tests_name() -> None:
    package = opencode.PACKAGE / "package.json"
    assert f'"version": "{opencode.VERSION}"' in package.read_text()
