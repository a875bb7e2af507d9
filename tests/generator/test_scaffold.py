"""`acp-codegen scaffold agent|client [--unstable] [--protocol v2] --out FILE`: runnable
starters."""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.v1 import methods
from acp_protocol.v1.unstable import methods as unstable_methods
from acp_protocol.v2 import methods as v2_methods
from acp_protocol.v2.unstable import methods as v2_unstable_methods
from mypy import api as mypy_api

from acp_codegen.cli import main
from acp_codegen.pipeline import ROOT
from tests.interop.test_interop_v2_python import first, states, their_v2_client

ROLES = ("agent", "client")


def write_starters(directory: Path, protocol: str) -> dict[tuple[str, bool], Path]:
    """Every starter of `protocol`, written by the real command line."""
    written = {}
    for role in ROLES:
        for unstable in (False, True):
            out = directory / f"{'unstable_' if unstable else ''}{protocol}_{role}.py"
            flags = ["--unstable"] if unstable else []
            assert main(["scaffold", role, "--protocol", protocol, "--out", str(out), *flags]) == 0
            written[role, unstable] = out
    return written


@pytest.fixture(scope="module")
def starters(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Path]:
    """Every v1 starter (the default), written once."""
    return write_starters(tmp_path_factory.mktemp("starters"), "v1")


@pytest.fixture(scope="module")
def v2_starters(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Path]:
    """Every `--protocol v2` starter, written once."""
    return write_starters(tmp_path_factory.mktemp("v2_starters"), "v2")


def agent_notifications(table: Any) -> set[str]:
    """The handlers of the notifications an agent receives (never advertised)."""
    return {s.handler_name for s in table.METHODS if s.side == "agent" and s.kind == "notification"}


def handler_methods(path: Path) -> dict[str, ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text())
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    [starter] = [node for node in classes if node.name.startswith("Starter")]
    return {n.name: n for n in starter.body if isinstance(n, ast.AsyncFunctionDef)}


@pytest.mark.parametrize("unstable", [False, True], ids=["stable", "unstable"])
@pytest.mark.parametrize("role", ROLES)
def test_starter_has_every_handler_of_its_role_with_the_schema_docstring(
    starters: dict[tuple[str, bool], Path], role: str, unstable: bool
) -> None:
    """The client starter has every handler; the agent starter only those it serves, since
    `initialize` advertises each optional method an agent defines."""
    table = unstable_methods if unstable else methods
    expected = {spec.handler_name for spec in table.METHODS if spec.side == role}
    if role == "agent":
        expected = {"initialize", "session_new", "session_prompt"} | agent_notifications(table)
    found = handler_methods(starters[role, unstable])
    assert set(found) - {"extension_request"} == expected
    for name in expected:
        arguments = [a.arg for a in found[name].args.args]
        assert arguments == ["self", "params", "ctx"], name
        assert ast.get_docstring(found[name]), name


def test_scaffold_refuses_to_overwrite_a_file_without_force(tmp_path: Path) -> None:
    out = tmp_path / "mine.py"
    out.write_text("# my own agent\n")
    assert main(["scaffold", "agent", "--out", str(out)]) == 2  # bad input
    assert out.read_text() == "# my own agent\n"
    assert main(["scaffold", "agent", "--out", str(out), "--force"]) == 0
    assert "class StarterAgent(Agent)" in out.read_text()


@pytest.mark.parametrize("unstable", [False, True], ids=["stable", "unstable"])
def test_scaffolded_client_and_agent_run_against_each_other(
    starters: dict[tuple[str, bool], Path], unstable: bool, tmp_path: Path
) -> None:
    """The fresh starters, unedited: the client spawns the agent, prompts it and prints the
    streamed reply; a `read PATH` prompt makes the agent read the file through the client."""
    agent, client = starters["agent", unstable], starters["client", unstable]
    notes = tmp_path / "notes.txt"
    notes.write_text("first line of the notes\nsecond line\n")
    for prompt, reply in (("hello agent", "You said: hello agent"), (f"read {notes}", "first")):
        command = [sys.executable, str(client), "--prompt", prompt, sys.executable, str(agent)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert reply in done.stdout
        assert done.stdout.rstrip().endswith("[end_turn]")


@pytest.mark.parametrize("attempt", range(5))  # repeated: a race would show
def test_ctrl_c_in_the_v1_client_starter_sends_session_cancel_and_prints_cancelled(
    starters: dict[tuple[str, bool], Path], tmp_path: Path, attempt: int
) -> None:
    """prompt-turn § Cancellation: the client sends `session/cancel` and "the Agent MUST respond
    to the original `session/prompt` request with the `cancelled` stop reason". Ctrl-C in the
    starter client waits for that answer, prints it and exits 0: no `KeyboardInterrupt`
    traceback, no exit 130."""
    agent, client = starters["agent", False], starters["client", False]
    words = " ".join(str(n) for n in range(2000))  # 20 s at the starter agent's pace
    command = [sys.executable, str(client), "--prompt", words, sys.executable, str(agent)]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert process.stdout is not None
    assert process.stdout.read(len("You said: 0 ")) == "You said: 0 "  # the turn runs
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert out.rstrip().endswith("[cancelled]") and "1999" not in out


def test_starters_pass_mypy_strict(
    starters: dict[tuple[str, bool], Path], v2_starters: dict[tuple[str, bool], Path]
) -> None:
    files = [str(path) for path in (*starters.values(), *v2_starters.values())]
    cache = str(ROOT / ".mypy_cache")
    stdout, stderr, status = mypy_api.run(["--strict", "--cache-dir", cache, *files])
    assert status == 0, stdout + stderr


@pytest.mark.parametrize("unstable", [False, True], ids=["stable", "unstable"])
@pytest.mark.parametrize("role", ROLES)
def test_v2_starter_has_every_handler_of_its_role_and_names_its_command(
    v2_starters: dict[tuple[str, bool], Path], role: str, unstable: bool
) -> None:
    table = v2_unstable_methods if unstable else v2_methods
    expected = {spec.handler_name for spec in table.METHODS if spec.side == role}
    if role == "agent":  # what it serves; the SDK serves session/list and session/close
        served = {"initialize", "session_new", "session_resume", "session_prompt"}
        expected = served | agent_notifications(table)
    found = handler_methods(v2_starters[role, unstable])
    assert set(found) - {"extension_request"} == expected
    for name in expected:
        assert [a.arg for a in found[name].args.args] == ["self", "params", "ctx"], name
        assert ast.get_docstring(found[name]), name
    flags = " --unstable" if unstable else ""
    command = f"acp-codegen scaffold {role}{flags} --protocol v2"
    assert f"written by `{command}`" in v2_starters[role, unstable].read_text()


def run_v2_starters(
    starters: dict[tuple[str, bool], Path], *options: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    agent, client = starters["agent", False], starters["client", False]
    command = [sys.executable, str(client), *options, sys.executable, str(agent)]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=60, cwd=cwd, stdin=subprocess.DEVNULL
    )


def test_v2_starters_stream_the_reply_word_by_word_then_report_idle_end_turn(
    v2_starters: dict[tuple[str, bool], Path], tmp_path: Path
) -> None:
    """The fresh v2 starters, unedited: the agent's work streams the reply one update per word;
    the client prints it and the stop reason of the idle update that ends the work."""
    done = run_v2_starters(v2_starters, "--prompt", "hello agent", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["You said: hello agent ", "[end_turn]"]


@pytest.mark.parametrize(("choice", "reply"), [("--approve-all", "Allowed."), ("", "Not allowed.")])
def test_the_v2_agent_starters_nested_permission_request_is_answered_by_the_client_starter(
    v2_starters: dict[tuple[str, bool], Path], tmp_path: Path, choice: str, reply: str
) -> None:
    options = [choice] if choice else []
    done = run_v2_starters(v2_starters, *options, "--prompt", "ask may I?", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [reply + " ", "[end_turn]"]


def test_ctrl_c_in_the_v2_client_starter_cancels_the_work_and_reports_idle_cancelled(
    v2_starters: dict[tuple[str, bool], Path], tmp_path: Path
) -> None:
    """CancelSessionNotification: "cancel a session's foreground work"; the agent "MUST report
    this stop reason [`cancelled`] on an idle `state_update` when cancellation ends active
    foreground work"."""
    agent, client = v2_starters["agent", False], v2_starters["client", False]
    words = " ".join(str(n) for n in range(400))  # 20 s of work at the starter's pace
    command = [sys.executable, str(client), "--prompt", words, sys.executable, str(agent)]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert process.stdout is not None
    assert process.stdout.read(len("You said: 0 1 ")) == "You said: 0 1 "  # the work runs
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out.rstrip().endswith("[cancelled]")
    assert "399" not in out


async def test_the_official_v2_client_runs_a_prompt_and_a_close_on_the_v2_agent_starter(
    v2_starters: dict[tuple[str, bool], Path],
) -> None:
    """Against the official TS SDK 2.4.0's v2 client: a prompt ends idle `end_turn`; a close
    during the work sends idle `cancelled` before its answer ("the Agent MUST send [...] the idle
    `state_update` with `stopReason: "cancelled"` before responding successfully")."""
    agent = (sys.executable, str(v2_starters["agent", False]))
    events = await their_v2_client("prompt", *agent)
    assert first(events, "initialize")["protocolVersion"] == 2
    assert states(events) == ["running", "idle"]
    assert first(events, "idle")["stopReason"] == "end_turn"
    events = await their_v2_client("close", *agent)
    assert first(events, "idle")["stopReason"] == "cancelled"
    assert first(events, "close_order")["idle_before_close"] is True
