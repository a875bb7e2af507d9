"""opencode 1.18.33 (`opencode acp`, npm `opencode-ai`) in the field (layer: test support):
installed from tests/field/locks/opencode, started offline against the Chat Completions mock
(mocks/chat_completions.py) through a custom OpenAI-compatible provider its own configuration
file declares (HOME/.config/opencode/opencode.json, `provider.mock.options.baseURL`), the mock's
URL substituted by opencode from the environment (`{env:OPENCODE_MOCK_URL}`).

Installing: `npm ci` cannot check this lock where the registry lacks most of opencode-ai's twelve
platform packages (only the Linux ones resolve here, so `npm install --package-lock-only` leaves
the others out and `npm ci` refuses the lock as out of sync); `npm install --no-save` installs
exactly the lock's versions and integrity hashes instead. opencode-ai's `postinstall.mjs` is then
run alone, scripts otherwise off: it links the platform's binary into bin/opencode.exe, which
until then is a shell script that only says the postinstall did not run."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.field.agents import Offline
from tests.paths import ROOT

LOCK = ROOT / "tests" / "field" / "locks" / "opencode"
PACKAGE = LOCK / "node_modules" / "opencode-ai"
AGENT = PACKAGE / "bin" / "opencode.exe"
VERSION = "1.18.33"
MOCK_VARIABLE = "OPENCODE_MOCK_URL"
MODEL = "mock/mock-model"


def install() -> None:
    """The lock's packages (scripts off), then opencode-ai's postinstall alone (see above)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    assert npm and node, "npm and node must be on PATH"
    command = [npm, "install", "--no-save", "--ignore-scripts", "--no-audit", "--no-fund"]
    subprocess.run(command, check=True, cwd=LOCK)
    subprocess.run([node, "postinstall.mjs"], check=True, cwd=PACKAGE)


def command() -> tuple[str, ...]:
    assert AGENT.exists(), "opencode is not installed: run `make field`"
    return (str(AGENT), "acp")


def config(ask: tuple[str, ...]) -> dict[str, object]:
    """One provider (the mock, OpenAI-compatible), its one model the default, nothing shared,
    no update; the tools in `ask` ask the client's permission."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "loopback mock",
                "options": {"baseURL": f"{{env:{MOCK_VARIABLE}}}/v1", "apiKey": "dummy"},
                "models": {"mock-model": {"name": "Mock model", "tool_call": True}},
            }
        },
        "model": MODEL,
        "small_model": MODEL,
        "enabled_providers": ["mock"],
        "autoupdate": False,
        "share": "disabled",
        "permission": {tool: "ask" for tool in ask},
    }


def opencode_offline(home: Path, ask: tuple[str, ...] = ("edit", "bash")) -> Offline:
    """opencode offline, its configuration in `home`/.config/opencode/opencode.json."""
    offline = Offline(home, MOCK_VARIABLE)
    settings = home / ".config" / "opencode" / "opencode.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(config(ask), indent=2))
    offline.env.update(
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_SHARE="1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
    )
    return offline
