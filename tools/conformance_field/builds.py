"""Building the field's programs (layer: builds): what a build gives (a command line and its
environment), the checked subprocess every build runs, and the table of builds by name.

Ours (`ours.py`) are the starters as `acp-codegen scaffold` writes them; the third parties'
(`third_party.py`) are fetched by their own package managers from the pins in this folder. A
missing toolchain is one line naming what to install (`BuildError`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root."""
BUILD = ROOT / ".build" / "conformance-field"
"""Where the builds and the suite's traces and pages go (never committed)."""
HERE = Path(__file__).resolve().parent


class BuildError(Exception):
    """A row's program cannot be built: one line (what failed, or what to install)."""


@dataclass(frozen=True)
class Program:
    """A built program: the command line that starts it, and what its environment adds or
    removes (None: the variable is removed)."""

    command: tuple[str, ...]
    env: Mapping[str, str | None] = field(default_factory=dict)

    def environment(self) -> dict[str, str]:
        merged = dict(os.environ)
        for name, value in self.env.items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = value
        return merged


def tool(name: str, install: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"{name} not found on PATH: {install}")
    return path


def checked(command: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> str:
    """Run a build step; its stdout, or BuildError with the end of its output."""
    done = subprocess.run(
        list(command),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise BuildError(f"`{' '.join(command)}` failed: {' / '.join(tail)}")
    return done.stdout


Build = Callable[[], Program]


def builds() -> dict[str, Build]:
    """Every build by name (a row's `build`)."""
    from . import field_agents, ours, third_party

    return {**ours.BUILDS, **third_party.BUILDS, **field_agents.BUILDS}


def shown(command: Sequence[str]) -> str:
    """A command line as the table shows it: paths inside the checkout relative to its root."""
    words = []
    for word in command:
        path = Path(word)
        if path.is_absolute() and path.is_relative_to(ROOT):
            word = str(path.relative_to(ROOT))
        words.append(word)
    return " ".join(words)
