"""codex-acp 2.6.0 (@agentclientprotocol, npm; it runs the Codex 0.166.0 app server its lock
pins) in the field (layer: test support): installed from tests/field/locks/codex by `npm ci
--ignore-scripts` (no package of the lock has an install script: the Codex binary is the
platform's optional package), started offline against the OpenAI Responses mock
(mocks/openai_responses.py) with its own HOME and CODEX_HOME, a dummy OPENAI_API_KEY (the client
authenticates with the `api-key` method) and the `read-only` mode, in which Codex asks the client's
permission before it edits a file or runs a command outside its sandbox."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.field.agents import Offline, npm_ci
from tests.paths import ROOT

LOCK = ROOT / "tests" / "field" / "locks" / "codex"
PACKAGE = LOCK / "node_modules" / "@agentclientprotocol" / "codex-acp"
AGENT = PACKAGE / "dist" / "index.js"
LAUNCHER = Path(__file__).with_name("codex_launch.py")
VERSION = "2.6.0"
AUTH = "api-key"
"""The authentication method a client chooses (`--auth api-key`): the key of the environment."""
CONFIG = """\
# Written by tests/field/codex.py: nothing reaches the network, nothing is sent home.
check_for_update_on_startup = false
[analytics]
enabled = false
"""


def install() -> None:
    """`npm ci` from the lock, scripts off (none is needed)."""
    npm_ci(LOCK)


def command() -> tuple[str, ...]:
    """The agent's command line: the launcher (codex_launch.py), which becomes the agent."""
    assert AGENT.exists(), "codex-acp is not installed: run `make field`"
    node = shutil.which("node")
    assert node, "node is not on PATH"
    return (sys.executable, str(LAUNCHER), node, str(AGENT))


def codex_offline(home: Path, mode: str = "read-only") -> Offline:
    """codex-acp offline: the mock's URL in OPENAI_BASE_URL (read by the launcher), Codex's
    home in `home`/.codex, the session's first mode `mode` (`read-only`: approval asked of the
    user, not of Codex's reviewer model, before a write or a command outside the sandbox)."""
    offline = Offline(home, "OPENAI_BASE_URL")
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(CONFIG)
    offline.env.update(
        OPENAI_API_KEY="dummy-key-for-the-mock",
        CODEX_HOME=str(codex_home),
        INITIAL_AGENT_MODE=mode,
        NO_BROWSER="1",
        APP_SERVER_LOGS=str(home / "logs"),
    )
    return offline
