"""`ACP_TRACE=FILE`: each runtime (Python, TypeScript, Go) records its own connection, in the
recorder's format, with the recorder's directions (`sent`: toward the agent) from either side.

One conversation per language: the starter client with ACP_TRACE, its agent started through
`python -m acp_protocol.trace record` (the wire as it passed) with an ACP_TRACE of its own. The
three recordings hold the same frames, in the same order each way. A FILE that cannot be opened
is one warning line and the conversation goes on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime.wire_trace import trace_path
from acp_protocol.trace.frames import read_frames

LANGUAGES = ("python", "typescript", "go")
PROMPT = "hello trace"


def run_pair(starters: Any, lang: str, folder: Path, client_trace: str, agent_trace: str) -> str:
    """The `lang` starter client against its agent behind the recorder; the client's stderr."""
    folder.mkdir(parents=True, exist_ok=True)
    agent = [
        "env",
        f"ACP_TRACE={agent_trace}",
        sys.executable,
        "-m",
        "acp_protocol.trace",
        "record",
        "--out",
        str(folder / "wire.jsonl"),
        "--",
        *starters[lang, "v1", "agent"].command,
    ]
    command = [*starters[lang, "v1", "client"].command, "--prompt", PROMPT, *agent]
    done = subprocess.run(
        command,
        env={**os.environ, "ACP_TRACE": client_trace},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"You said: {PROMPT} \n[end_turn]\n"
    return done.stderr


def frames(path: Path) -> dict[str, list[Any]]:
    """A recording's frames by direction, each as its JSON value (or raw text)."""
    by_direction: dict[str, list[Any]] = {"sent": [], "received": []}
    for frame in read_frames(path):
        by_direction[frame.dir].append(frame.value if frame.raw is None else frame.raw)
    return by_direction


def header(path: Path) -> dict[str, Any]:
    import json

    with path.open(encoding="utf-8") as lines:
        first: dict[str, Any] = json.loads(next(lines))
    return first


@pytest.mark.parametrize("lang", LANGUAGES)
def test_client_and_agent_record_the_frames_of_the_wire_with_the_recorders_directions(
    starters: Any, lang: str, tmp_path: Path
) -> None:
    client, agent = tmp_path / "client.jsonl", tmp_path / "agent.jsonl"
    run_pair(starters, lang, tmp_path, str(client), str(agent))
    wire = frames(tmp_path / "wire.jsonl")
    assert wire["sent"][0]["method"] == "initialize"
    assert any(m.get("method") == "session/update" for m in wire["received"])
    assert frames(client) == wire
    assert frames(agent) == wire
    assert header(client)["side"] == "client" and header(agent)["side"] == "agent"
    assert header(client)["acpTrace"] == 1 and header(agent)["pid"] != header(client)["pid"]
    times = [frame.t for frame in read_frames(client)]
    assert times == sorted(times) and times[0] >= 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_trace_file_that_cannot_be_opened_is_one_warning_and_the_conversation_goes_on(
    starters: Any, lang: str, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-folder" / "client.jsonl"
    stderr = run_pair(starters, lang, tmp_path, str(missing), str(tmp_path / "agent.jsonl"))
    warnings = [line for line in stderr.splitlines() if "ACP_TRACE" in line]
    assert warnings == [
        f"acp: ACP_TRACE: cannot write {missing}: No such file or directory; "
        "the connection goes on unrecorded"
    ]
    assert frames(tmp_path / "agent.jsonl") == frames(tmp_path / "wire.jsonl")


def test_pid_and_n_name_each_connection_of_a_process_and_a_plain_name_gets_its_number() -> None:
    assert trace_path("t-{pid}-{n}.jsonl", 3, 42) == "t-42-3.jsonl"
    assert trace_path("/tmp/acp.jsonl", 1, 42) == "/tmp/acp.jsonl"
    assert trace_path("/tmp/acp.jsonl", 2, 42) == "/tmp/acp.2.jsonl"
    assert trace_path("/tmp/acp-{pid}", 2, 42) == "/tmp/acp-42.2"
