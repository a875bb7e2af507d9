"""gemini-cli 0.61.0 (@google/gemini-cli, npm, `gemini --acp`) in the field (layer: test
support): installed from tests/field/locks/gemini by `npm ci --ignore-scripts` (the CLI is one
bundle; its packages with install scripts, keytar and node-pty, are optional and unused here),
started offline against the Gemini API mock (mocks/gemini.py) through `GOOGLE_GEMINI_BASE_URL`,
with its own HOME, a dummy GEMINI_API_KEY (the `gemini-api-key` method, chosen in its settings,
so no `authenticate` is needed), one model (no model-router side request), and the `default`
approval mode, in which it asks the client's permission before it writes a file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.field.agents import Offline, npm_ci
from tests.paths import ROOT

LOCK = ROOT / "tests" / "field" / "locks" / "gemini"
PACKAGE = LOCK / "node_modules" / "@google" / "gemini-cli"
AGENT = PACKAGE / "bundle" / "gemini.js"
VERSION = "0.61.0"
MODEL = "gemini-2.5-flash"
AUTH = "gemini-api-key"
"""The authentication method: the key of the environment (GEMINI_API_KEY)."""
SETTINGS = {
    "security": {"auth": {"selectedType": AUTH}},
    "model": {"name": MODEL},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}
"""HOME/.gemini/settings.json: nothing is sent home, nothing updated."""


def install() -> None:
    """`npm ci` from the lock, scripts off (none is needed)."""
    npm_ci(LOCK)


def command() -> tuple[str, ...]:
    """The agent's command line."""
    assert AGENT.exists(), "gemini-cli is not installed: run `make field`"
    node = shutil.which("node")
    assert node, "node is not on PATH"
    return (node, str(AGENT), "--acp")


def gemini_offline(home: Path, trusted: Path | None = None) -> Offline:
    """gemini-cli offline: the mock's URL in GOOGLE_GEMINI_BASE_URL, its settings in
    `home`/.gemini, the folder `trusted` trusted (HOME/.gemini/trustedFolders.json) as a user
    trusts their project: in an untrusted folder it offers "Allow for this session" and then
    fails the tool ("Cannot enable privileged approval modes in an untrusted folder.")."""
    offline = Offline(home, "GOOGLE_GEMINI_BASE_URL")
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(SETTINGS, indent=2))
    if trusted is not None:
        trust = {str(trusted): "TRUST_FOLDER"}
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trust))
    offline.env.update(GEMINI_API_KEY="dummy-key-for-the-mock")
    return offline
