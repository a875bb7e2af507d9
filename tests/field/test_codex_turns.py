"""codex-acp 2.6.0 (@agentclientprotocol, npm, tests/field/locks/codex; it runs Codex 0.166.0), a
production agent nobody here wrote, through whole turns offline, driven by our starter clients in
Python, TypeScript and Go, v1 and v2 (it negotiates both), and by the typed example client
(examples/client.py, v1), against a loopback mock of the OpenAI Responses API
(tests/field/mocks/openai_responses.py). The agent is started through our recorder, so every frame
is checked, not only what a client printed. Only with `--field` (`make field` installs it).

Codex's model has one tool, `exec` (a free-form `custom` tool: JavaScript that calls Codex's own
tools, `tools.exec_command`, `tools.apply_patch`, …): the mock's model reads notes.txt with
`cat`, then adds out.txt with a patch, then says so. Codex reads and writes files itself (never
the client's `fs/*`, though every client here offers it). In the `read-only` mode the patch asks
the client's permission: allowed once, out.txt holds what the model wrote; rejected ("No, and tell
Codex what to do differently"), out.txt is never written and Codex ends the turn `cancelled`. A
long answer is interrupted with Ctrl-C and ends `cancelled`. No run leaves a process behind."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.field import checks
from tests.field.codex import AUTH, PACKAGE, VERSION, codex_offline, command
from tests.field.mocks import openai_responses
from tests.field.mocks.script import Script, ToolUse, words
from tests.field.turns import Turn, run_turn
from tests.paths import ROOT
from tests.starters.builds import LANGUAGES, PROTOCOLS, Starters

pytestmark = pytest.mark.usefixtures("needs_field")

NOTES = "the secret is 42\n"
WRITTEN = "a line the model wrote\n"
CLOSING = "I read the secret and wrote out.txt for you."
LONG = words(" ".join(f"word{n}" for n in range(400)), pause=0.05)
READ = 'text(await tools.exec_command({cmd: "cat notes.txt"}));'
PATCH = (
    'text(await tools.apply_patch("*** Begin Patch\\n*** Add File: out.txt\\n+'
    + WRITTEN.strip()
    + '\\n*** End Patch\\n"));'
)
CLIENTS = [*((lang, protocol) for lang in LANGUAGES for protocol in PROTOCOLS), ("example", "v1")]
"""Each starter client (language, protocol), and the typed example client (examples/client.py)."""
IDS = [f"{lang}-{protocol}" for lang, protocol in CLIENTS]


def read_then_write() -> Script:
    return Script(
        [
            ToolUse("exec", {"input": READ}, "call_read"),
            ToolUse("exec", {"input": PATCH}, "call_write", preamble="Now I write the file."),
            words(CLOSING),
        ]
    )


def client_command(starters: Starters, lang: str, protocol: str) -> tuple[str, ...]:
    if lang == "example":
        return (sys.executable, str(ROOT / "examples" / "client.py"), "--auth", AUTH)
    return starters[lang, protocol, "client"].command


def codex_turn(
    starters: Starters,
    client: tuple[str, str],
    tmp_path: Path,
    recording: Path,
    script: Script,
    options: tuple[str, ...],
    **interrupt: Any,
) -> Turn:
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "notes.txt").write_text(NOTES)
    return run_turn(
        (*client_command(starters, *client), "--prompt", "read notes.txt and write out.txt"),
        command(),
        codex_offline(tmp_path / "home"),
        openai_responses.responder,
        script,
        cwd,
        recording,
        options,
        **interrupt,
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


def negotiated(turn: Turn) -> int:
    (initialize,) = turn.sent("initialize")
    return int(turn.answer_to(initialize, "received")["result"]["protocolVersion"])


def asked_about(asked: dict[str, Any], protocol: str) -> dict[str, Any]:
    """The tool call a permission request is about (v2 wraps it in a `subject`)."""
    params = asked["params"]
    holder = params if protocol == "v1" else params["subject"]
    return dict(holder["toolCall"])


def chosen_kind(turn: Turn, asked: dict[str, Any]) -> str:
    """The kind of the option the client answered `asked` with."""
    outcome = turn.answer_to(asked, "sent")["result"]["outcome"]
    assert outcome["outcome"] == "selected", outcome
    kinds = {o["optionId"]: o["kind"] for o in asked["params"]["options"]}
    return str(kinds[outcome["optionId"]])


def tool_output(script: Script, call_id: str) -> str:
    """What the model was told a tool call gave (the output item of `call_id`)."""
    for request in reversed(script.requests):
        for item in request.get("input") or []:
            if item.get("type", "").endswith("_call_output") and item.get("call_id") == call_id:
                return json.dumps(item.get("output"))
    raise AssertionError(f"no model request carries the output of {call_id}")


def client_services_used(turn: Turn) -> list[str]:
    """The client's file and terminal methods the agent called."""
    return [
        str(f["json"]["method"])
        for f in turn.frames
        if f.get("dir") == "received"
        and isinstance(f.get("json"), dict)
        and str(f["json"].get("method", "")).startswith(("fs/", "terminal/"))
    ]


@pytest.mark.field_steps("words", "read", "write allowed")
@pytest.mark.parametrize("client", CLIENTS, ids=IDS)
def test_a_turn_reads_a_file_and_writes_one_once_the_user_allows_it(
    starters: Starters, client: tuple[str, str], tmp_path: Path, recording: Path
) -> None:
    protocol = client[1]
    script = read_then_write()
    turn = codex_turn(starters, client, tmp_path, recording, script, ("--approve-all",))
    assert turn.returncode == 0, turn.describe()
    assert negotiated(turn) == int(protocol[1])
    # The words arrive in order, and the turn ends as the model's last answer implies.
    assert CLOSING in turn.stdout, turn.describe()
    assert stop_reason(turn, protocol) == "end_turn"
    # The read went through (Codex ran `cat` itself): the model was told the file's text.
    assert "the secret is 42" in tool_output(script, "call_read")
    # The patch asked first; the client allowed it once; the file holds what the model wrote.
    (asked,) = turn.received("session/request_permission")
    assert asked_about(asked, protocol)["kind"] == "edit"
    assert chosen_kind(turn, asked) == "allow_once"
    assert (tmp_path / "work" / "out.txt").read_text() == WRITTEN
    assert client_services_used(turn) == []
    assert script.elsewhere == []
    assert turn.survivors == []


@pytest.mark.field_steps("write rejected")
@pytest.mark.parametrize("client", CLIENTS, ids=IDS)
def test_a_write_the_user_rejects_is_never_written(
    starters: Starters, client: tuple[str, str], tmp_path: Path, recording: Path
) -> None:
    protocol = client[1]
    script = read_then_write()
    turn = codex_turn(starters, client, tmp_path, recording, script, ("--deny-all",))
    assert turn.returncode == 0, turn.describe()
    (asked,) = turn.received("session/request_permission")
    assert chosen_kind(turn, asked) == "reject_once"
    assert not (tmp_path / "work" / "out.txt").exists()
    # Codex's only reject option aborts the turn: it ends `cancelled`, though the client sent
    # no session/cancel, and the model is not asked again.
    assert turn.sent("session/cancel") == []
    assert stop_reason(turn, protocol) == "cancelled"
    assert len(script.requests) == 2
    assert turn.survivors == []


@pytest.mark.field_steps("cancel")
@pytest.mark.parametrize("client", CLIENTS, ids=IDS)
def test_ctrl_c_during_a_long_answer_ends_the_turn_cancelled(
    starters: Starters, client: tuple[str, str], tmp_path: Path, recording: Path
) -> None:
    protocol = client[1]
    turn = codex_turn(
        starters,
        client,
        tmp_path,
        recording,
        Script([LONG]),
        (),
        interrupt_when=lambda out: "word5" in out,
    )
    checks.cancelled_by_ctrl_c(turn, stop_reason(turn, protocol))


def test_the_pinned_agent_is_the_one_these_tests_name() -> None:
    package = json.loads((PACKAGE / "package.json").read_text())
    assert package["version"] == VERSION
