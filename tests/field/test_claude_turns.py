"""claude-agent-acp 0.101.0 (@agentclientprotocol, npm, tests/interop/production's lock), a
production agent nobody here wrote, through whole turns offline, driven by our starter clients in
Python, TypeScript and Go, v1 and v2 (it negotiates both), against a loopback mock of the
Anthropic Messages API (tests/field/mocks/anthropic.py). The agent is started through our
recorder, so every frame of the conversation is checked, not only what a client printed.

One turn holds the words, a file read and a permission-gated file write (the agent's settings
make `Write` ask): the model reads notes.txt, then writes out.txt, then says so. Allowed once,
out.txt holds what the model wrote; rejected, it is never written. A long answer is interrupted
with Ctrl-C and ends `cancelled`. No run leaves a process of the agent behind, and no run reaches
the network (every proxy variable is a closed loopback port)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.field import checks
from tests.field.agents import CLAUDE_VERSION, claude_command, claude_offline
from tests.field.mocks import anthropic
from tests.field.mocks.script import Script, ToolUse, words
from tests.field.turns import Turn, run_turn
from tests.starters.builds import LANGUAGES, PROTOCOLS, Starters

NOTES = "the secret is 42\n"
WRITTEN = "a line the model wrote\n"
CLOSING = "I read the secret and wrote out.txt for you."
LONG = words(" ".join(f"word{n}" for n in range(400)), pause=0.05)


def read_then_write(cwd: Path) -> Script:
    return Script(
        [
            ToolUse("Read", {"file_path": str(cwd / "notes.txt")}, "toolu_read"),
            ToolUse(
                "Write",
                {"file_path": str(cwd / "out.txt"), "content": WRITTEN},
                "toolu_write",
                preamble="Now I write the file.",
            ),
            words(CLOSING),
        ]
    )


def claude_turn(
    starters: Starters,
    lang: str,
    protocol: str,
    tmp_path: Path,
    recording: Path,
    script: Script,
    options: tuple[str, ...],
    **interrupt: object,
) -> Turn:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "notes.txt").write_text(NOTES)
    client = starters[lang, protocol, "client"].command
    return run_turn(
        (*client, "--prompt", "read notes.txt and write out.txt"),
        claude_command(),
        claude_offline(tmp_path / "home"),
        anthropic.responder,
        script,
        cwd,
        recording,
        options,
        **interrupt,  # type: ignore[arg-type]
    )


def stop_reason(turn: Turn, protocol: str) -> str | None:
    """How the turn ended: v1, the prompt's answer; v2, the last `idle` state's stop reason."""
    if protocol == "v1":
        (prompt,) = turn.sent("session/prompt")
        return str(turn.answer_to(prompt, "received")["result"]["stopReason"])
    states = [u for u in turn.updates() if u.get("sessionUpdate") == "state_update"]
    if not states or states[-1].get("state") != "idle":
        return None
    return str(states[-1].get("stopReason"))


def permission_subject(asked: dict[str, object], protocol: str) -> object:
    """The tool call a permission request is about (v2 wraps it in a `subject`)."""
    params = asked["params"]
    assert isinstance(params, dict)
    holder = params if protocol == "v1" else params["subject"]
    return holder["toolCall"]["toolCallId"]


def negotiated(turn: Turn) -> int:
    (initialize,) = turn.sent("initialize")
    return int(turn.answer_to(initialize, "received")["result"]["protocolVersion"])


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_turn_reads_a_file_and_writes_one_once_the_user_allows_it(
    starters: Starters, lang: str, protocol: str, tmp_path: Path, recording: Path
) -> None:
    script = read_then_write(tmp_path / "work")
    turn = claude_turn(starters, lang, protocol, tmp_path, recording, script, ("--approve-all",))
    assert turn.returncode == 0, turn.describe()
    assert negotiated(turn) == int(protocol[1])
    # The words arrive in order, and the turn ends as the model's last answer implies.
    assert CLOSING in turn.stdout, turn.describe()
    assert stop_reason(turn, protocol) == "end_turn"
    # The model's Read went through: the next model request carries the file's text.
    results = [str(m) for r in script.requests for m in r["messages"] if "tool_result" in str(m)]
    assert any(
        "the secret is 42" in r for r in results
    ), "the Read's result never reached the model"
    # The write asked first; the client allowed it once; the file holds what the model wrote.
    (asked,) = turn.received("session/request_permission")
    assert permission_subject(asked, protocol) == "toolu_write"
    outcome = turn.answer_to(asked, "sent")["result"]["outcome"]
    chosen = {o["optionId"]: o["kind"] for o in asked["params"]["options"]}[outcome["optionId"]]
    assert (outcome["outcome"], chosen) == ("selected", "allow_once")
    assert (tmp_path / "work" / "out.txt").read_text() == WRITTEN
    assert turn.survivors == []


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_write_the_user_rejects_is_never_written_and_the_turn_goes_on(
    starters: Starters, lang: str, protocol: str, tmp_path: Path, recording: Path
) -> None:
    script = read_then_write(tmp_path / "work")
    turn = claude_turn(starters, lang, protocol, tmp_path, recording, script, ("--deny-all",))
    assert turn.returncode == 0, turn.describe()
    (asked,) = turn.received("session/request_permission")
    outcome = turn.answer_to(asked, "sent")["result"]["outcome"]
    chosen = {o["optionId"]: o["kind"] for o in asked["params"]["options"]}[outcome["optionId"]]
    assert chosen.startswith("reject")
    assert not (tmp_path / "work" / "out.txt").exists()
    statuses = [u.get("status") for u in turn.updates() if u.get("toolCallId") == "toolu_write"]
    assert statuses[-1] == "failed", statuses
    assert stop_reason(turn, protocol) == "end_turn"
    assert turn.survivors == []


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_ctrl_c_during_a_long_answer_ends_the_turn_cancelled(
    starters: Starters, lang: str, protocol: str, tmp_path: Path, recording: Path
) -> None:
    script = Script([LONG])
    turn = claude_turn(
        starters,
        lang,
        protocol,
        tmp_path,
        recording,
        script,
        (),
        interrupt_when=lambda out: "word5" in out,
    )
    checks.cancelled_by_ctrl_c(turn, stop_reason(turn, protocol))


def test_the_pinned_agent_is_the_one_these_tests_name() -> None:
    package = Path(claude_command()[0]).parents[1] / "package.json"
    assert f'"version": "{CLAUDE_VERSION}"' in package.read_text()
