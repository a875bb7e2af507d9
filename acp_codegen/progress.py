"""Progress lines on stderr for a command that runs long (the CLI's view of the pipeline's steps).

A command still running after `DELAY` seconds shows what it is doing, `acp-codegen: rendering
python (6/8)…`, when stderr is a terminal: as one line, rewritten at each step and erased when the
command ends (so the line the command prints last stands alone). Where stderr is no terminal (a
script, a CI log) nothing is shown unless `--progress` asks for it, as one plain line per step, as
git does: what a script reads on stderr stays the command's own lines (a failure is one line).
`--quiet` shows nothing anywhere. A command done within the delay shows nothing: the first line
appears when the delay runs out, naming the step then under way.

The pipeline reports its steps to the `Progress` a command set (`reporting`), as it would log:
code run without one (a test, a library caller) reports to nobody.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal, TextIO

DELAY = 2.0
"""Seconds a command runs before it shows its progress."""
PREFIX = "acp-codegen: "
_ERASE = "\r\x1b[K"
"""Back to the start of the line, and clear it."""


Mode = Literal["terminal", "lines", "off"]
"""One line rewritten; a plain line per step; nothing."""


class Progress:
    """The steps of one command, shown on `stream` as `mode` says once `delay` seconds passed."""

    def __init__(self, stream: TextIO, mode: Mode, *, delay: float | None = None) -> None:
        delay = DELAY if delay is None else delay
        self._stream = stream
        self._mode = mode
        self._lock = threading.Lock()
        self._total = 0
        self._done = 0
        self._line: str | None = None
        self._shown = mode != "off" and delay <= 0
        self._on_screen = False
        self._closed = False
        self._timer: threading.Timer | None = None
        if mode != "off" and delay > 0:
            self._timer = threading.Timer(delay, self._show)
            self._timer.daemon = True
            self._timer.start()

    @property
    def mode(self) -> Mode:
        return self._mode

    @classmethod
    def of(cls, stream: TextIO, *, quiet: bool = False, forced: bool = False) -> Progress:
        """A command's progress: nothing when `quiet`; on a terminal, one line; elsewhere, plain
        lines when `forced` (`--progress`), else nothing."""
        if quiet:
            return cls(stream, "off")
        if is_terminal(stream):
            return cls(stream, "terminal")
        return cls(stream, "lines" if forced else "off")

    def expect(self, steps: int) -> None:
        """Count `steps` more steps in the total the lines show."""
        with self._lock:
            self._total += steps

    def step(self, what: str) -> None:
        """A step begins: `what` it does (`rendering python`)."""
        with self._lock:
            self._done += 1
            self._line = f"{PREFIX}{what} ({self._done}/{max(self._total, self._done)})…"
            if self._shown and not self._closed:
                self._write()

    def close(self) -> None:
        """The command ended: no more lines, and a terminal's line is erased."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._on_screen:
                self._stream.write(_ERASE)
                self._stream.flush()
                self._on_screen = False

    def _show(self) -> None:
        with self._lock:
            self._shown = not self._closed
            if self._shown and self._line is not None:
                self._write()

    def _write(self) -> None:
        assert self._line is not None
        if self._mode == "terminal":
            self._stream.write(_ERASE + self._line)
            self._on_screen = True
        else:
            self._stream.write(self._line + "\n")
        self._stream.flush()


def is_terminal(stream: TextIO) -> bool:
    """Whether lines on `stream` can be rewritten: a terminal that is not a dumb one."""
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


_CURRENT: ContextVar[Progress | None] = ContextVar("acp_codegen_progress", default=None)


@contextmanager
def reporting(progress: Progress) -> Iterator[Progress]:
    """Steps reported inside go to `progress`, which is closed on the way out."""
    token = _CURRENT.set(progress)
    try:
        yield progress
    finally:
        _CURRENT.reset(token)
        progress.close()


def expect(steps: int) -> None:
    """`Progress.expect` of the command's progress, if it has one."""
    current = _CURRENT.get()
    if current is not None:
        current.expect(steps)


def step(what: str) -> None:
    """`Progress.step` of the command's progress, if it has one."""
    current = _CURRENT.get()
    if current is not None:
        current.step(what)
