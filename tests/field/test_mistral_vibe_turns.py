"""mistral-vibe 3.0.2 (`vibe-acp`, PyPI, its own Python 3.13 environment from the hashed lock
tests/field/locks/mistral-vibe), a production agent nobody here wrote, through whole v1 turns
offline (it answers `protocolVersion: 1` to a v2 client), driven by our v1 starter clients in
Python, TypeScript and Go and by the typed example client, against the Chat Completions mock
(tests/field/mocks/chat_completions.py; Mistral's API has that shape) as its `mistral` provider.
The agent is started through our recorder.

The model reads notes.txt (Vibe's `read_file`, never asked), then writes out.txt (`write_file`:
the `ask` mode, set by its configuration, asks the client's permission), then says so. Vibe reads
and writes the files itself, never through the client's `fs/*`, though the client offers both.
Rejected, the file is never written. A long answer is interrupted with Ctrl-C and ends
`cancelled`. A conversation comes back in a new process by `session/load` (advertised). Nothing
of the agent survives a run; nothing reaches the network."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.field import chat_turns as chat
from tests.field import checks, mistral_vibe
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
        ToolUse("read_file", {"path": str(cwd / "notes.txt")}, "call_read"),
        ToolUse(
            "write_file",
            {"path": str(cwd / "out.txt"), "content": chat.WRITTEN},
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
    return run_turn(
        (*client, "--prompt", chat.PROMPT),
        mistral_vibe.command(),
        mistral_vibe.vibe_offline(tmp_path / "home"),
        chat_completions.responder,
        script,
        tmp_path / "work",
        recording,
        options,
        **interrupt,  # type: ignore[arg-type]
    )


def tool_call_of(done: Turn, tool: str) -> str:
    """Vibe's own id of the tool call running the model's `tool` (it names it in `_meta`)."""
    (found,) = {
        u["toolCallId"]
        for u in done.updates()
        if u.get("sessionUpdate") == "tool_call" and (u.get("_meta") or {}).get("tool_name") == tool
    }
    return str(found)


@pytest.mark.field_steps("words", "read", "write allowed")
@pytest.mark.parametrize("client", chat.CLIENTS)
def test_a_turn_reads_a_file_and_writes_one_once_the_user_allows_it(
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
    # The model's `read_file` went through, unasked: its result holds the file's text.
    assert chat.model_got(model, "the secret is 42"), "the read's result never reached the model"
    assert chat.statuses(done, tool_call_of(done, "read_file"))[-1] == "completed"
    # The write asked first, about the write's tool call; the client allowed it once.
    write = tool_call_of(done, "write_file")
    (asked,) = done.received("session/request_permission")
    assert asked["params"]["toolCall"]["toolCallId"] == write
    assert str(cwd / "out.txt") in chat.paths_of(done, write)
    assert chat.chosen(done, asked) == ("selected", "allow_once")
    assert (cwd / "out.txt").read_text() == chat.WRITTEN
    # Vibe wrote (and read) the files itself: the client's file service was offered, not used.
    assert done.received("fs/write_text_file") == done.received("fs/read_text_file") == []
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
    assert chat.statuses(done, tool_call_of(done, "write_file"))[-1] == "failed"
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


async def test_a_conversation_comes_back_in_a_new_process_by_load(
    tmp_path: Path, recording: Path
) -> None:
    cwd = chat.workspace(tmp_path)
    offline = mistral_vibe.vibe_offline(tmp_path / "home")
    model = Script([words(FIRST_ANSWER), words("It was zebra.")])
    first = recording.with_suffix(".first.jsonl")
    with serve(chat_completions.responder(model)) as url:
        offline.env[offline.mock_variable] = url
        agent = recorded(mistral_vibe.command(), first)
        session_id, _, init = await v1_turn(agent, offline.env, cwd, None, "load", prompt=FIRST)
        assert init["agentCapabilities"]["loadSession"] is True
        agent = recorded(mistral_vibe.command(), recording)
        _, replayed, _ = await v1_turn(agent, offline.env, cwd, session_id, "load", prompt=SECOND)
    # "session/load replays previous conversation history before responding" (the v2
    # session-resume RFD, describing v1).
    assert FIRST in text_of(replayed, "user_message_chunk"), json.dumps(replayed)[:2000]
    assert FIRST_ANSWER in text_of(replayed, "agent_message_chunk"), replayed
    turns = [r for r in model.requests if not chat_completions.side_request(r)]
    assert FIRST in str(turns[-1]["messages"]) and FIRST_ANSWER in str(turns[-1]["messages"])
    assert wait_for_no_survivors(offline.marker) == []


def test_the_pinned_agent_is_the_one_these_tests_name() -> None:
    site = next((mistral_vibe.VENV / "lib").glob("python*/site-packages"))
    (metadata,) = site.glob("mistral_vibe-*.dist-info")
    assert metadata.name == f"mistral_vibe-{mistral_vibe.VERSION}.dist-info"


BATCH = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}]


@pytest.mark.xfail(
    strict=True,
    reason="mistral-vibe 3.0.2 (its ACP library, agent-client-protocol 0.11.0) dies on a JSON-RPC "
    "batch: AttributeError: 'list' object has no attribute 'get' (acp/connection.py "
    "_process_message), exit 1, no reply",
)
def test_a_json_rpc_batch_is_answered_and_the_agent_goes_on(
    tmp_path: Path, recording: Path
) -> None:
    """JSON-RPC 2.0: a batch is answered by an array of responses (or, refused, by one error
    with id null); either way the connection goes on."""
    chat.workspace(tmp_path)
    offline = mistral_vibe.vibe_offline(tmp_path / "home")
    offline.env[offline.mock_variable] = "http://127.0.0.1:9"
    single = {**BATCH[0], "id": 2}
    lines = (json.dumps(BATCH) + "\n" + json.dumps(single) + "\n").encode()
    agent = recorded(mistral_vibe.command(), recording)
    done = subprocess.run(
        agent, input=lines, capture_output=True, env=offline.env, cwd=tmp_path / "work", timeout=120
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert any(isinstance(a, list) or a.get("id") is None for a in answers), done.stderr[-2000:]
    assert any(isinstance(a, dict) and a.get("id") == 2 and "result" in a for a in answers)
    assert wait_for_no_survivors(offline.marker) == []
