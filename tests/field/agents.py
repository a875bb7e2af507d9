"""How each production agent of the field is started offline: its program (from a lock), a home
folder of its own, the marker that finds its leftover processes, every proxy variable on a closed
loopback port (only the mock, on 127.0.0.1, is reachable), no key of this machine, and the
variables that point it at its model-API mock."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.paths import ROOT

PRODUCTION = ROOT / "tests" / "interop" / "production" / "node_modules"
CLAUDE_AGENT = PRODUCTION / "@agentclientprotocol" / "claude-agent-acp" / "dist" / "index.js"
CLAUDE_VERSION = "0.101.0"
CLOSED_PORT = "http://127.0.0.1:9"
PROXIES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


@dataclass
class Offline:
    """An agent's offline environment: `env` for its process, `home` its own home folder,
    `marker` the value of ACP_TEST_MARKER its processes (and their children) carry."""

    home: Path
    mock_variable: str = ""
    """The variable that points the agent at its model-API mock (set to the mock's URL)."""
    marker: str = field(default_factory=lambda: uuid.uuid4().hex)
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        self.env = {
            k: v for k, v in os.environ.items() if not any(w in k.upper() for w in SECRET_WORDS)
        }
        self.env.update(HOME=str(self.home), ACP_TEST_MARKER=self.marker)
        self.env.update({name: CLOSED_PORT for name in PROXIES})
        self.env.update(NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")


def claude_offline(home: Path, ask: tuple[str, ...] = ("Write", "Edit", "Bash")) -> Offline:
    """claude-agent-acp against the Anthropic mock (ANTHROPIC_BASE_URL). Its settings (HOME/.claude)
    make the tools in `ask` ask the client's permission (`permissions.ask`); without them it
    writes files without asking. IS_SANDBOX=1 lets it run as root, as CI does."""
    offline = Offline(home, "ANTHROPIC_BASE_URL")
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"ask": list(ask)}}))
    offline.env.update(
        ANTHROPIC_API_KEY="dummy-key-for-the-mock",
        IS_SANDBOX="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return offline


def claude_command() -> tuple[str, ...]:
    assert (
        CLAUDE_AGENT.exists()
    ), "claude-agent-acp is not installed: run `make test` (npm ci in tests/interop/production)"
    return (str(CLAUDE_AGENT),)


def survivors(marker: str) -> list[int]:
    """Running (not zombie) processes whose environment carries `marker`."""
    found = []
    needle = f"ACP_TEST_MARKER={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            environment = Path(f"/proc/{entry}/environ").read_bytes()
        except (OSError, IndexError):
            continue
        if needle in environment.split(b"\0") and state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def wait_for_no_survivors(marker: str, seconds: float = 5.0) -> list[int]:
    """The processes still carrying `marker` after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while (left := survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def npm_ci(lock: Path) -> None:
    """Install an agent's npm lock folder exactly as locked (`npm ci`), install scripts off."""
    npm = shutil.which("npm")
    assert npm, "npm is not on PATH"
    command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(lock)]
    subprocess.run(command, check=True, cwd=lock)
