"""The examples (examples/agent.py, examples/client.py) run against each other, as the README
shows, including Ctrl-C in the middle of a turn."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

CLIENT = str(ROOT / "examples" / "client.py")
AGENT = str(ROOT / "examples" / "agent.py")
NEEDS_AUTH = str(ROOT / "tests" / "fixture_agents" / "needs_auth.py")


def run_client(
    *options: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The example client against the fixture agent that needs auth, with no terminal."""
    command = [sys.executable, CLIENT, *options, "--prompt", "go", sys.executable, NEEDS_AUTH]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def test_an_agent_that_needs_auth_gets_one_clear_line_listing_its_methods() -> None:
    done = run_client()
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "client: the agent requires authentication: choose --auth ID from: "
        "key (API key); login (the agent's own login)"
    ]


def test_an_env_var_auth_method_reads_its_variables_from_the_environment() -> None:
    missing = run_client("--auth", "key")
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == "client: --auth key reads FIXTURE_KEY from the environment: set it"
    )
    done = run_client("--auth", "key", env={"FIXTURE_KEY": "secret"})
    assert done.returncode == 0, done.stderr
    assert "[tool: rm -rf build (pending)]" in done.stdout


def test_permission_is_denied_without_a_terminal_and_granted_with_approve_all() -> None:
    """ "deny (never fail) when there is no terminal"; `--approve-all` picks the allow option."""
    key = {"FIXTURE_KEY": "secret"}
    denied = run_client("--auth", "key", env=key)
    approved = run_client("--auth", "key", "--approve-all", env=key)
    assert "permission outcome: no" in denied.stdout
    assert "permission outcome: yes" in approved.stdout
    assert (denied.returncode, approved.returncode) == (0, 0)


def test_an_agent_error_is_one_line_with_its_details_not_a_traceback() -> None:
    """`authenticate` fails: the user reads the code, the message and the data's details."""
    done = run_client("--auth", "login")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "client: RpcError: Authentication failed (-32603): login did not work"
    )


def test_example_client_prompts_the_example_agent(tmp_path: Path) -> None:
    """Two turns: the reply streams, the title is set then updated, a file is read through the
    client."""
    notes = tmp_path / "notes.txt"
    notes.write_text("a line from the notes\n")
    command = [sys.executable, CLIENT, "--prompt", "hello there", "--prompt", f"read {notes}"]
    done = subprocess.run(
        [*command, sys.executable, AGENT], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    assert lines == [
        "You said: hello there",
        "[title: hello there]",
        "[end_turn]",
        "a line from the notes",
        "[title: hello there (2 turns)]",
        "[end_turn]",
    ]


def test_ctrl_c_in_the_example_client_ends_the_turn_cancelled() -> None:
    """Ctrl-C sends `session/cancel`: the agent streams its last chunk and answers the prompt
    `stopReason: "cancelled"` ("MUST respond ... with the `cancelled` stop reason")."""
    command = [sys.executable, CLIENT, "--prompt", "count 400", sys.executable, AGENT]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as client:
        assert client.stdout is not None
        seen = ""
        while "3 " not in seen:  # the reply is streaming
            seen += client.stdout.read(1)
        client.send_signal(signal.SIGINT)
        rest, _ = client.communicate(timeout=30)
    output = seen + rest
    assert client.returncode == 0
    assert "[cancelled by session]" in output
    assert output.rstrip().endswith("[cancelled]")
    assert " 399 " not in output  # cut short


def test_the_agent_command_may_follow_a_double_dash(tmp_path: Path) -> None:
    """`client.py [OPTIONS] -- AGENT…`, as the starter clients take it: `--` ends the client's
    options (an agent whose own options look like the client's), it is not the agent's program."""
    command = [sys.executable, CLIENT, "--prompt", "hello there", "--", sys.executable, AGENT]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "You said: hello there" in done.stdout
