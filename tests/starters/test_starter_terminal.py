"""The starter clients on a real terminal (docs/install.md, "Starters"): each client (Python,
TypeScript, Go; v1, v2) runs with its stdin and stdout on a pseudo-terminal (so `isatty()` is
true and the permission question is asked there), its own session with the terminal as its
controlling terminal (its process group in the foreground), against the starter agent of its
language and version with the prompt `ask may I?`:

- Ctrl-C at the `[y/N]` question (`\\x03` typed on the terminal, ISIG on, so the kernel sends
  SIGINT to the foreground process group): the client sends the cancel, the question is
  withdrawn (its line ended, nothing more read from the terminal: no Enter is typed), it prints
  `[cancelled]` on a line of its own and exits 0 (within the 5 s it may wait, and a margin for a
  loaded machine), no traceback, no agent process left, the terminal's modes as they were;
- `y` and Enter: the agent is allowed (`Allowed.`), `[end_turn]`; `n`: `Not allowed.`.

Each test runs ACP_TERMINAL_RUNS times in a row (default 1; `ACP_TERMINAL_RUNS=10 pytest
tests/starters/test_starter_terminal.py` for the ten runs a race would need to show)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import subprocess
import tempfile
import termios
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.starters.builds import LANGUAGES, PROTOCOLS, Starters
from tests.starters.table import MARKER, kill, kill_group, processes_with

RUNS = int(os.environ.get("ACP_TERMINAL_RUNS", "1"))
QUESTION = b"[y/N] "
PROMPT = "ask may I?"
CANCEL_WAIT = 5.0
"""Seconds a client may wait, after Ctrl-C, for the prompt's end (docs/install.md)."""
LOAD = 5.0
"""Seconds more a run may take on a loaded machine (two cores shared by the tiers)."""
RUN_TIMEOUT = 30.0
LEFTOVER_WAIT = 5.0
MODES = termios.ICANON | termios.ECHO | termios.ISIG
"""The terminal's local modes a client must leave as it found them."""


@dataclass
class TerminalRun:
    """What one client run on the terminal showed: the terminal's output (`\\r\\n` read as
    `\\n`), stderr, exit status, seconds from the key typed to the client's exit."""

    output: str = ""
    stderr: str = ""
    returncode: int | None = None
    after_key: float = 0.0
    leftovers: list[int] = field(default_factory=list)
    modes_before: int = 0
    modes_after: int = 0

    def describe(self) -> str:
        return (
            f"exit {self.returncode}, {self.after_key:.1f} s after the key\n"
            f"terminal: {self.output[-400:]!r}\nstderr: {self.stderr[-600:]!r}"
        )


def take_terminal() -> None:
    """In the child, after `setsid`: the pseudo-terminal on its stdin becomes its controlling
    terminal, its process group the terminal's foreground group (as a shell's job)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def read_until(master: int, seen: bytearray, wanted: bytes | None, deadline: float) -> bool:
    """Read the terminal into `seen` until `wanted` shows (None: until the client's end, the
    terminal hung up); False at the deadline."""
    while wanted is None or wanted not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([master], [], [], left)[0]:
            return False
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the last process holding the terminal's other side ended
            return wanted is None
        if not chunk:
            return wanted is None
        seen += chunk
    return True


def on_terminal(command: list[str], key: bytes, cwd: Path) -> TerminalRun:
    """Run `command` on a fresh pseudo-terminal; once it asks `[y/N]`, type `key`; wait for its
    end. The agent it spawns inherits a marker, to find it if it outlives the client."""
    marker = uuid.uuid4().hex
    master, slave = os.openpty()
    result = TerminalRun(modes_before=termios.tcgetattr(slave)[3] & MODES)
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env={**os.environ, MARKER: marker},
            stdin=slave,
            stdout=slave,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=take_terminal,
        )
        os.close(slave)
        seen = bytearray()
        try:
            asked = read_until(master, seen, QUESTION, time.monotonic() + RUN_TIMEOUT)
            typed = time.monotonic()
            if asked:
                os.write(master, key)
                read_until(master, seen, None, typed + RUN_TIMEOUT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                result.returncode = process.wait(timeout=RUN_TIMEOUT if asked else 1)
            result.after_key = time.monotonic() - typed
            with contextlib.suppress(termios.error):
                result.modes_after = termios.tcgetattr(master)[3] & MODES
        finally:
            kill_group(process.pid)
            process.wait()
            os.close(master)
        stderr.seek(0)
        result.stderr = stderr.read().decode(errors="replace")
    result.output = seen.decode(errors="replace").replace("\r\n", "\n")
    deadline = time.monotonic() + LEFTOVER_WAIT
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    result.leftovers = left
    for pid in left:
        kill(pid)
    return result


PAIRS = [(lang, protocol) for protocol in PROTOCOLS for lang in LANGUAGES]


def client_command(starters: Starters, lang: str, protocol: str) -> list[str]:
    """The client of `lang` and `protocol`, prompting the starter agent of the same."""
    client, agent = starters[lang, protocol, "client"], starters[lang, protocol, "agent"]
    return [*client.command, "--prompt", PROMPT, "--", *agent.command]


def no_failure_printed(run: TerminalRun) -> None:
    assert "Traceback" not in run.stderr, f"a traceback\n{run.describe()}"
    failed = [
        line
        for line in run.stderr.splitlines()
        if line.startswith(("starter client:", "client:", "Error", "error"))
    ]
    assert not failed, f"a failure printed\n{run.describe()}"


@pytest.mark.parametrize(("lang", "protocol"), PAIRS, ids=[f"{lang}-{p}" for lang, p in PAIRS])
def test_ctrl_c_at_the_permission_question_withdraws_it_prints_cancelled_and_exits_0(
    starters: Starters, lang: str, protocol: str, tmp_path: Path
) -> None:
    """Ctrl-C typed at `[y/N]`: no Enter follows, yet the client ends: the question's line
    ended, `[cancelled]` the last line, exit 0 within the 5 s, no failure printed, no agent
    left, the terminal's modes as before."""
    command = client_command(starters, lang, protocol)
    for number in range(1, RUNS + 1):
        run = on_terminal(command, b"\x03", tmp_path)
        where = f"run {number} of {RUNS}\n{run.describe()}"
        assert run.returncode == 0, f"not exit 0: {where}"
        assert run.after_key < CANCEL_WAIT + LOAD, f"not ended within {CANCEL_WAIT} s: {where}"
        after_question = run.output.split(QUESTION.decode())[-1]
        assert re.fullmatch(
            r"[^\n]*\n+\[cancelled\]\n", after_question
        ), f"the question's line not ended, then [cancelled]: {where}"
        assert "llowed" not in after_question, f"the question was answered: {where}"
        no_failure_printed(run)
        assert not run.leftovers, f"an agent outlived its client: {where}"
        assert run.modes_after == run.modes_before, f"the terminal's modes changed: {where}"


@pytest.mark.parametrize(("answer", "words"), [("y", "Allowed. "), ("n", "Not allowed. ")])
@pytest.mark.parametrize(("lang", "protocol"), PAIRS, ids=[f"{lang}-{p}" for lang, p in PAIRS])
def test_an_answer_typed_at_the_permission_question_is_the_agents_answer(
    starters: Starters, lang: str, protocol: str, answer: str, words: str, tmp_path: Path
) -> None:
    """`y` (or `n`) and Enter at `[y/N]`: the agent streams `Allowed.` (`Not allowed.`), then
    `[end_turn]`, exit 0, no agent left, the terminal's modes as before."""
    command = client_command(starters, lang, protocol)
    for number in range(1, RUNS + 1):
        run = on_terminal(command, f"{answer}\n".encode(), tmp_path)
        where = f"run {number} of {RUNS}\n{run.describe()}"
        assert run.returncode == 0, f"not exit 0: {where}"
        after_question = run.output.split(QUESTION.decode())[-1]
        assert after_question == f"{answer}\n{words}\n[end_turn]\n", where
        no_failure_printed(run)
        assert not run.leftovers, f"an agent outlived its client: {where}"
        assert run.modes_after == run.modes_before, f"the terminal's modes changed: {where}"
