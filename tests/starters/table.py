"""Running the starter table: one client against one agent with one prompt (and, for Ctrl-C, a
SIGINT to the client's process group once the first word is printed, as a terminal sends it),
then what came out and whether the agent outlived its client. The runs go through a pool of four
threads (each run is two processes), so the table stays within a few minutes on two cores."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tests.starters.builds import Starter

POOL = 4
RUN_TIMEOUT = 40.0
"""Seconds a run may take before its processes are killed (and the run fails)."""
LEFTOVER_WAIT = 5.0
"""Seconds an agent may outlive its client (closing its stdin, ending its process group)."""
TIMINGS: list[tuple[str, float]] = []
"""(what, seconds) of each step of the table (the builds, the runs), for the session's summary."""
MARKER = "ACP_STARTER_TABLE_RUN"
"""An environment variable set, unique, for each run's client: the agent inherits it, so a
process still carrying it after the client exited is a leftover agent."""


@dataclass(frozen=True)
class Run:
    """One client run against one agent."""

    client: Starter
    agent: Starter
    prompt: str
    options: tuple[str, ...] = ()
    separator: bool = False
    """`--` between the client's options and the agent program."""
    agent_args: tuple[str, ...] = ()
    """The agent program's own arguments, after its command."""
    ctrl_c: bool = False
    env: tuple[tuple[str, str], ...] = ()

    @property
    def pair(self) -> str:
        return f"{self.client.name} → {self.agent.name}"


@dataclass
class Outcome:
    run: Run
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    leftovers: list[int] = field(default_factory=list)
    seconds: float = 0.0
    failure: str = ""
    """Why the run itself failed (timed out, the client printed nothing), or ""."""

    def describe(self) -> str:
        lines = [
            f"{self.run.pair} {' '.join(self.run.options)} --prompt {self.run.prompt[:40]!r}"
            + (" --" if self.run.separator else "")
            + "".join(f" {a}" for a in self.run.agent_args)
            + (" (Ctrl-C)" if self.run.ctrl_c else ""),
            f"  exit {self.returncode}, {self.seconds:.1f} s {self.failure}",
            f"  stdout: {self.stdout[-300:]!r}",
            f"  stderr: {self.stderr[-600:]!r}",
        ]
        if self.leftovers:
            lines.append(f"  agent processes left over: {self.leftovers}")
        return "\n".join(lines)


def processes_with(marker: str) -> list[int]:
    """The live processes (of this user) whose environment carries `marker`."""
    found = []
    needle = f"{MARKER}={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environment.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def execute(run: Run, cwd: Path) -> Outcome:
    """Run the client with `--prompt` and the options, the agent program after it (its own
    arguments as given); stdin is /dev/null (not a terminal)."""
    marker = uuid.uuid4().hex
    environment = {**os.environ, **dict(run.env), MARKER: marker}
    command = [
        *run.client.command,
        *run.options,
        *("--prompt", run.prompt),
        *(["--"] if run.separator else []),
        *run.agent.command,
        *run.agent_args,
    ]
    outcome = Outcome(run)
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    watchdog = threading.Timer(RUN_TIMEOUT, lambda: kill_group(process.pid))
    watchdog.start()
    try:
        head = b""
        if run.ctrl_c:
            assert process.stdout is not None
            head = first_word(process.stdout)
            if head.strip():
                os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
            else:
                outcome.failure = "(no word printed before the end)"
        out, err = process.communicate()
        outcome.stdout = (head + out).decode(errors="replace")
        outcome.stderr = err.decode(errors="replace")
        outcome.returncode = process.returncode
    finally:
        if watchdog.is_alive():
            watchdog.cancel()
        else:
            outcome.failure += f"(killed after {RUN_TIMEOUT} s)"
    outcome.seconds = time.monotonic() - started
    deadline = time.monotonic() + LEFTOVER_WAIT
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    outcome.leftovers = left
    for pid in left:  # not to disturb the next runs
        kill(pid)
    return outcome


def first_word(stream: IO[bytes]) -> bytes:
    """The client's output up to its first printed character (or all, at its end): the prompt's
    reply is streaming."""
    seen = b""
    while not seen.strip():
        byte = stream.read(1)
        if not byte:
            break
        seen += byte
    return seen


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def execute_all(runs: Iterable[Run], cwd: Path) -> list[Outcome]:
    """Every run, four at a time; the outcomes in the runs' order."""
    with ThreadPoolExecutor(max_workers=POOL) as pool:
        return list(pool.map(lambda run: execute(run, cwd), runs))
