"""`ACP_TRACE=FILE`: each runtime (Python, TypeScript, Go) records its own connection, in the
recorder's format, with the recorder's directions (`sent`: toward the agent) from either side.

One conversation per language: the starter client with ACP_TRACE, its agent started through
`python -m acp_protocol.trace record` (the wire as it passed) with an ACP_TRACE of its own. The
three recordings hold the same frames, in the same order each way. A FILE that cannot be opened
is one warning line and the conversation goes on. The six conversations run at once, four at a
time, before the first test (`conversations`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime.wire_trace import trace_path
from acp_protocol.trace.frames import FORMAT_VERSION, read_frames

LANGUAGES = ("python", "typescript", "go")
PROMPT = "hello trace"


def run_pair(starters: Any, lang: str, folder: Path, client_trace: str, agent_trace: bool) -> str:
    """The `lang` starter client (ACP_TRACE=`client_trace`) against its agent behind the recorder
    (with `agent_trace`, ACP_TRACE=folder/agent.jsonl; else what the client passes on), in
    `folder`; the client's stderr."""
    folder.mkdir(parents=True, exist_ok=True)
    own = [f"ACP_TRACE={folder / 'agent.jsonl'}"] if agent_trace else []
    agent = [
        "env",
        *own,
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


MISSING = "no-such-folder/client.jsonl"
"""The unopenable ACP_TRACE of each language's second conversation (under its folder); its
agent gets no ACP_TRACE of its own."""


@pytest.fixture(scope="module")
def conversations(starters: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`<lang>` and `<lang>-unopenable` → the folder of that conversation (its recordings)."""
    root = tmp_path_factory.mktemp("acp_trace")
    runs = {lang: root / lang / "client.jsonl" for lang in LANGUAGES}
    runs |= {f"{lang}-unopenable": root / f"{lang}-unopenable" / MISSING for lang in LANGUAGES}

    def converse(name: str) -> Path:
        folder = root / name
        (folder / "stderr.txt").parent.mkdir(parents=True, exist_ok=True)
        stderr = run_pair(starters, name.split("-")[0], folder, str(runs[name]), name in LANGUAGES)
        (folder / "stderr.txt").write_text(stderr)
        return folder

    with ThreadPoolExecutor(4) as pool:
        return dict(zip(runs, pool.map(converse, runs), strict=True))


def frames(path: Path) -> dict[str, list[Any]]:
    """A recording's frames by direction, each as its JSON value (or raw text)."""
    by_direction: dict[str, list[Any]] = {"sent": [], "received": []}
    for frame in read_frames(path):
        by_direction[frame.dir].append(frame.value if frame.raw is None else frame.raw)
    return by_direction


def header(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as lines:
        first: dict[str, Any] = json.loads(next(lines))
    return first


@pytest.mark.parametrize("lang", LANGUAGES)
def test_client_and_agent_record_the_frames_of_the_wire_with_the_recorders_directions(
    conversations: dict[str, Path], lang: str
) -> None:
    folder = conversations[lang]
    client, agent = folder / "client.jsonl", folder / "agent.jsonl"
    wire = frames(folder / "wire.jsonl")
    assert wire["sent"][0]["method"] == "initialize"
    assert any(m.get("method") == "session/update" for m in wire["received"])
    assert frames(client) == wire
    assert frames(agent) == wire
    assert header(client)["side"] == "client" and header(agent)["side"] == "agent"
    assert header(client)["acpTrace"] == header(agent)["acpTrace"] == FORMAT_VERSION
    assert header(agent)["pid"] != header(client)["pid"]
    times = [frame.t for frame in read_frames(client)]
    assert times == sorted(times) and times[0] >= 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_trace_file_that_cannot_be_opened_is_one_warning_and_the_conversation_goes_on(
    conversations: dict[str, Path], lang: str
) -> None:
    """One warning: the agent the client starts does not inherit ACP_TRACE (it would warn too)."""
    folder = conversations[f"{lang}-unopenable"]
    missing = folder / MISSING
    stderr = (folder / "stderr.txt").read_text()
    warnings = [line for line in stderr.splitlines() if "ACP_TRACE" in line]
    assert warnings == [
        f"acp: ACP_TRACE: cannot write {missing}: No such file or directory; "
        "the connection goes on unrecorded"
    ]
    assert [path.name for path in folder.glob("*.jsonl")] == ["wire.jsonl"]
    assert frames(folder / "wire.jsonl")["received"]


def test_pid_and_n_name_each_connection_of_a_process_and_a_plain_name_gets_its_number() -> None:
    assert trace_path("t-{pid}-{n}.jsonl", 3, 42) == "t-42-3.jsonl"
    assert trace_path("/tmp/acp.jsonl", 1, 42) == "/tmp/acp.jsonl"
    assert trace_path("/tmp/acp.jsonl", 2, 42) == "/tmp/acp.2.jsonl"
    assert trace_path("/tmp/acp-{pid}", 2, 42) == "/tmp/acp-42.2"
