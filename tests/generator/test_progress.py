"""Progress lines (acp_codegen/progress.py): a command running past the delay shows its steps on
stderr, one line rewritten on a terminal and erased at the end, plain lines where asked, nothing
when quiet or done within the delay."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import time

import pytest

from acp_codegen.progress import Progress, reporting, step

ERASE = "\r\x1b[K"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_steps(progress: Progress, *steps: str) -> None:
    progress.expect(len(steps))
    with reporting(progress):
        for what in steps:
            step(what)


def test_on_a_terminal_one_line_is_rewritten_at_each_step_and_erased_at_the_end() -> None:
    stream = Terminal()
    run_steps(Progress(stream, "terminal", delay=0), "loading", "rendering python")
    assert stream.getvalue() == (
        f"{ERASE}acp-codegen: loading (1/2)…"
        f"{ERASE}acp-codegen: rendering python (2/2)…"
        f"{ERASE}"
    )


def test_plain_lines_are_one_line_per_step_and_nothing_to_erase() -> None:
    stream = io.StringIO()
    run_steps(Progress(stream, "lines", delay=0), "loading", "rendering python")
    assert stream.getvalue().splitlines() == [
        "acp-codegen: loading (1/2)…",
        "acp-codegen: rendering python (2/2)…",
    ]


def test_a_command_done_within_the_delay_shows_nothing() -> None:
    for mode in ("terminal", "lines"):
        stream = Terminal()
        run_steps(Progress(stream, mode, delay=3600), "loading", "rendering python")
        assert stream.getvalue() == ""


def test_when_the_delay_runs_out_the_step_under_way_is_shown() -> None:
    stream = io.StringIO()
    progress = Progress(stream, "lines", delay=0.01)
    progress.expect(2)
    with reporting(progress):
        step("checking 4 schemas")
        deadline = time.monotonic() + 30  # waits for the timer; the delay is not what is tested
        while not stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stream.getvalue() == "acp-codegen: checking 4 schemas (1/2)…\n"
        step("lowering v1 stable")
    assert stream.getvalue().splitlines()[-1] == "acp-codegen: lowering v1 stable (2/2)…"


def test_quiet_shows_nothing_even_on_a_terminal() -> None:
    stream = Terminal()
    run_steps(Progress.of(stream, quiet=True), "loading")
    assert stream.getvalue() == ""


@pytest.mark.parametrize(
    ("terminal", "forced", "term", "mode"),
    [
        (True, False, "xterm-256color", "terminal"),
        (True, False, "dumb", "off"),
        (True, True, "dumb", "lines"),
        (False, False, "xterm-256color", "off"),
        (False, True, "xterm-256color", "lines"),
    ],
)
def test_the_mode_follows_the_stream_and_the_options(
    terminal: bool, forced: bool, term: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A terminal rewrites one line; a dumb terminal, a pipe or a file shows nothing unless
    --progress asks for plain lines."""
    monkeypatch.setenv("TERM", term)
    progress = Progress.of(Terminal() if terminal else io.StringIO(), forced=forced)
    progress.close()
    assert progress.mode == mode


def test_steps_reported_without_a_progress_go_nowhere(capsys: pytest.CaptureFixture[str]) -> None:
    step("rendering python")  # no command set one: no error, no output
    assert capsys.readouterr() == ("", "")


def mode_on(stderr_is_a_terminal: bool, term: str) -> str:
    """The mode `Progress.of(sys.stderr)` picks in a fresh process whose stderr is a real
    pseudo-terminal, or a pipe."""
    probe = (
        "import sys; from acp_codegen.progress import Progress; print(Progress.of(sys.stderr).mode)"
    )
    env = {**os.environ, "TERM": term}
    if not stderr_is_a_terminal:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env
        )
        return done.stdout.strip()
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe],
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            env=env,
        )
    finally:
        os.close(follower)
        os.close(leader)
    return done.stdout.strip()


def test_a_real_terminal_on_stderr_gets_the_rewritten_line_a_pipe_or_a_dumb_terminal_nothing() -> (
    None
):
    assert mode_on(True, "xterm-256color") == "terminal"
    assert mode_on(True, "dumb") == "off"
    assert mode_on(False, "xterm-256color") == "off"
