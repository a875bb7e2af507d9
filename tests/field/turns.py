"""One client's whole turn with a production agent: the mock serving its script, the agent
started by the client through the recorder (`python -m acp_protocol.trace record`), the
client's output, the recording, and what is left of the agent's processes afterwards."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.field.agents import Offline, wait_for_no_survivors
from tests.field.mocks.script import Script
from tests.field.mocks.server import Respond, serve

RECORDER = (sys.executable, "-m", "acp_protocol.trace", "record")
TURN_SECONDS = 180


@dataclass
class Turn:
    """What one run produced."""

    returncode: int
    stdout: str
    stderr: str
    recording: Path
    script: Script
    survivors: list[int]
    seconds: float
    frames: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.frames = read_recording(self.recording)

    def received(self, method: str) -> list[dict[str, Any]]:
        """The messages of `method` the agent sent."""
        return [
            f["json"]
            for f in self.frames
            if f.get("dir") == "received"
            and isinstance(f.get("json"), dict)
            and f["json"].get("method") == method
        ]

    def sent(self, method: str) -> list[dict[str, Any]]:
        """The messages of `method` the client sent."""
        return [
            f["json"]
            for f in self.frames
            if f.get("dir") == "sent"
            and isinstance(f.get("json"), dict)
            and f["json"].get("method") == method
        ]

    def answer_to(self, request: dict[str, Any], direction: str) -> dict[str, Any]:
        """The answer (sent in `direction`) to `request`."""
        for f in self.frames:
            value = f.get("json")
            if (
                f.get("dir") == direction
                and isinstance(value, dict)
                and "method" not in value
                and value.get("id") == request["id"]
            ):
                return value
        raise AssertionError(f"request {request['id']} ({request.get('method')}) never answered")

    def updates(self) -> list[dict[str, Any]]:
        """The `update` of each session/update the agent sent, in order."""
        return [m["params"]["update"] for m in self.received("session/update")]

    def describe(self) -> str:
        return (
            f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr[-4000:]}"
        )


def read_recording(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def run_turn(
    client: Sequence[str],
    agent: Sequence[str],
    offline: Offline,
    respond: Callable[[Script], Respond],
    script: Script,
    cwd: Path,
    recording: Path,
    options: Sequence[str] = (),
    interrupt_when: Callable[[str], bool] | None = None,
) -> Turn:
    """Run `client [options] -- RECORDER --out recording -- agent` in `cwd` with the agent's
    offline environment pointed at a fresh mock serving `script`. With `interrupt_when`, the
    client gets SIGINT (its process group, as a terminal's Ctrl-C) once its stdout so far
    satisfies it."""
    started = time.monotonic()
    with serve(respond(script)) as url:
        offline.env[offline.mock_variable] = url
        command = [*client, *options, "--", *RECORDER, "--out", str(recording), "--", *agent]
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env={**offline.env, "NO_COLOR": "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = communicate(process, interrupt_when)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    left = wait_for_no_survivors(offline.marker)
    return Turn(
        process.returncode, stdout, stderr, recording, script, left, time.monotonic() - started
    )


def communicate(
    process: subprocess.Popen[str], interrupt_when: Callable[[str], bool] | None
) -> tuple[str, str]:
    if interrupt_when is None:
        return process.communicate(timeout=TURN_SECONDS)
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + TURN_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while not interrupt_when(seen):
            if time.monotonic() > deadline or process.poll() is not None:
                break
            if selector.select(timeout=0.1):
                chunk = os.read(process.stdout.fileno(), 4096).decode(errors="replace")
                if not chunk:
                    break
                seen += chunk
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    rest, stderr = process.communicate(timeout=TURN_SECONDS)
    return seen + rest, stderr
