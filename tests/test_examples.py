"""The examples (examples/agent.py, examples/client.py) run against each other, as the README
shows, including Ctrl-C in the middle of a turn."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from codegen.pipeline import ROOT

CLIENT = str(ROOT / "examples" / "client.py")
AGENT = str(ROOT / "examples" / "agent.py")


def test_example_client_prompts_the_example_agent(tmp_path: Path) -> None:
    """Two turns: the reply streams, the title is set then updated, a file is read through the
    client."""
    notes = tmp_path / "notes.txt"
    notes.write_text("a line from the notes\n")
    command = [sys.executable, CLIENT, "--prompt", "hello there", "--prompt", f"read {notes}"]
    done = subprocess.run(
        [*command, sys.executable, AGENT], capture_output=True, text=True, timeout=60
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
