"""mistral-vibe 3.0.2 (`vibe-acp`, PyPI, Python >= 3.12) in the field (layer: test support):
installed from the hashed tests/field/locks/mistral-vibe/requirements.txt into a virtual
environment of its own (.field/mistral-vibe-py3.13, pyenv's Python 3.13), started offline against
the Chat Completions mock (mocks/chat_completions.py; Mistral's API has that shape) through the
launcher (mistral_vibe_launch.py: the `mistral` provider's `api_base` on the mock), with its own
HOME (HOME/.vibe/config.toml: no telemetry, no update check) and a dummy MISTRAL_API_KEY (without
one, `session/new` fails -32000 "Missing API key")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.field.agents import Offline
from tests.paths import ROOT

LOCK = ROOT / "tests" / "field" / "locks" / "mistral-vibe"
PYTHON_VERSION = "3.13"
VENV = ROOT / ".field" / f"mistral-vibe-py{PYTHON_VERSION}"
AGENT = VENV / "bin" / "vibe-acp"
LAUNCHER = Path(__file__).with_name("mistral_vibe_launch.py")
VERSION = "3.0.2"
MOCK_VARIABLE = "MISTRAL_MOCK_URL"
CONFIG = """\
# Written by tests/field/mistral_vibe.py: nothing reaches the network, nothing is sent home.
enable_telemetry = false
enable_update_checks = false
enable_auto_update = false
enable_notifications = false
enable_otel = false
enable_connectors = false
api_retry_max_elapsed_time = 5.0
default_agent = "ask"
"""


def python() -> str:
    """A Python 3.13: on PATH as python3.13, or pyenv's."""
    found = shutil.which(f"python{PYTHON_VERSION}")
    if found:
        return found
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = sorted(root.glob(f"{PYTHON_VERSION}.*/bin/python{PYTHON_VERSION}"))
    assert candidates, f"mistral-vibe needs Python {PYTHON_VERSION} (python3.13 or pyenv)"
    return str(candidates[-1])


def install() -> None:
    """A fresh virtual environment, then every package of the lock, each checked by its hash."""
    if VENV.exists():
        shutil.rmtree(VENV)
    subprocess.run([python(), "-m", "venv", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps"]
    subprocess.run([*pip, "--require-hashes", "-r", str(LOCK / "requirements.txt")], check=True)


def command() -> tuple[str, ...]:
    assert AGENT.exists(), "mistral-vibe is not installed: run `make field`"
    return (sys.executable, str(LAUNCHER), str(AGENT))


def vibe_offline(home: Path) -> Offline:
    """vibe-acp offline: its configuration in `home`/.vibe, the mock's URL in MISTRAL_MOCK_URL."""
    offline = Offline(home, MOCK_VARIABLE)
    (home / ".vibe").mkdir(parents=True, exist_ok=True)
    (home / ".vibe" / "config.toml").write_text(CONFIG)
    offline.env.update(MISTRAL_API_KEY="dummy-key-for-the-mock", VIBE_HOME=str(home / ".vibe"))
    return offline
