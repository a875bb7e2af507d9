"""An agent run with regular files for stdin and stdout (`agent < requests.ndjson >
answers.ndjson`): every request is answered into the file, and the process exits 0. asyncio's pipe
transports refuse regular files ("Pipe transport is only for pipes, sockets and character
devices"); the Python runtime puts them behind a pipe (`transports/file_pumps.py`). Our TypeScript
agent is held to the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.interop.support import INTEROP, node, our_ts_program

REQUESTS = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
    {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}},
]


def _prompt(session_id: str) -> dict[str, object]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": "stream"}]}
    return {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": params}


@pytest.mark.parametrize("runtime", ["python", "typescript"])
def test_an_agent_reads_a_file_and_answers_into_a_file(tmp_path: Path, runtime: str) -> None:
    command = (
        [sys.executable, str(INTEROP / "our_agent.py")]
        if runtime == "python"
        else [node(), our_ts_program("interop_agent")]
    )
    session_id = "py-1" if runtime == "python" else "ts-1"
    requests = tmp_path / "requests.ndjson"
    answers = tmp_path / "answers.ndjson"
    lines = [json.dumps(m) for m in [*REQUESTS, _prompt(session_id)]]
    requests.write_text("\n".join(lines) + "\n")
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run(
            command, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=30
        )
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    messages = [json.loads(line) for line in answers.read_text().splitlines()]
    answered = {m["id"]: m for m in messages if "id" in m}
    assert set(answered) == {0, 1, 2}
    assert answered[1]["result"]["sessionId"] == session_id
    assert answered[2]["result"] == {"stopReason": "end_turn"}
    texts = [m["params"]["update"]["content"]["text"] for m in messages if "method" in m]
    assert texts == ["one ", "two ", "three"]


@pytest.mark.parametrize("runtime", ["python", "typescript"])
def test_a_handler_waiting_on_the_gone_peer_is_answered_and_logs_one_line(
    tmp_path: Path, runtime: str
) -> None:
    """Half-close: the prompt asks the client for a file after the client's input ended; our
    request fails at once (no answer can come), the prompt is answered with an error, and the
    agent says so in one line (no traceback)."""
    command = (
        [sys.executable, str(INTEROP / "our_agent.py")]
        if runtime == "python"
        else [node(), our_ts_program("interop_agent")]
    )
    session_id = "py-1" if runtime == "python" else "ts-1"
    nested = _prompt(session_id)
    nested["params"]["prompt"] = [{"type": "text", "text": "nested"}]  # type: ignore[index]
    lines = [json.dumps(m) for m in [*REQUESTS, nested]]
    done = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    assert answers[2]["error"]["code"] == -32603
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 1, done.stderr
