"""fast-agent-mcp 0.10.48 (PyPI, `fast-agent-acp`) in the field (layer: test support): installed
from tests/field/locks/fast-agent/requirements.txt (every package pinned with its hashes) into a
virtual environment of its own, .field/fast-agent-py3.X/ (it needs Python 3.12 or newer: the
first of pyenv's 3.13 / 3.12, or a python3.13 / python3.12 on PATH), and started offline with
`--model passthrough`: its built-in model echoes the prompt, so no model-API mock is needed (the
mock variable is one it never reads). It speaks through the official Python SDK
(agent-client-protocol 0.12.1)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.field.agents import Offline
from tests.paths import ROOT

LOCK = ROOT / "tests" / "field" / "locks" / "fast-agent"
REQUIREMENTS = LOCK / "requirements.txt"
VERSION = "0.10.48"
PYTHONS = ("3.13", "3.12")
"""The Python versions it is installed with, first found first (Requires-Python: >=3.12,<3.16)."""


def interpreter() -> tuple[str, Path] | None:
    """(version, python) of the first Python ≥ 3.12 found: pyenv's, then PATH's."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for version in PYTHONS:
        for candidate in sorted(root.glob(f"{version}.*"), reverse=True):
            if (candidate / "bin" / "python").exists():
                return version, candidate / "bin" / "python"
        found = shutil.which(f"python{version}")
        if found:
            return version, Path(found)
    return None


def environment() -> Path:
    """The agent's virtual environment (.field/fast-agent-py3.X)."""
    found = interpreter()
    version = found[0] if found else PYTHONS[0]
    return ROOT / ".field" / f"fast-agent-py{version}"


def install() -> None:
    """A fresh virtual environment, then `pip install --require-hashes` from the lock."""
    found = interpreter()
    assert found, "fast-agent-mcp needs Python 3.12 or newer (pyenv 3.13/3.12, or on PATH)"
    venv = environment()
    if not (venv / "bin" / "python").exists():
        subprocess.run([str(found[1]), "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps"]
    subprocess.run([*pip, "--require-hashes", "-r", str(REQUIREMENTS)], check=True)


def command() -> tuple[str, ...]:
    """The agent's command line."""
    program = environment() / "bin" / "fast-agent-acp"
    assert program.exists(), "fast-agent-mcp is not installed: run `make field`"
    return (str(program), "--model", "passthrough")


def fast_agent_offline(home: Path) -> Offline:
    """fast-agent offline: no key, no mock (the passthrough model)."""
    offline = Offline(home, "FAST_AGENT_UNUSED_MOCK_URL")
    offline.env.update(PYTHONDONTWRITEBYTECODE="1")
    return offline
