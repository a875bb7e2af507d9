"""The field's agents (layer: data): for each production agent, its name, the package and the
version its lock pins, where its lock is, the module that installs and starts it (`install()`,
`command()`), and the test module that drives it. `make field` installs each from its lock
(`python -m tests.field.registry install`); the results collector (results.py) and the report
(`python -m tools.field_report`) name each test's agent and version from here.

A test module whose name no agent's prefix starts is reported under its own name, version
unknown."""

from __future__ import annotations

import importlib
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.paths import ROOT

LOCKS = ROOT / "tests" / "field" / "locks"


@dataclass(frozen=True)
class FieldAgent:
    name: str
    package: str
    registry: str
    """`npm` or `PyPI`."""
    version: str
    lock: Path
    """The folder of its lock (npm package-lock.json, or a hashed requirements.txt)."""
    module: str
    """The module whose `install()` installs it from the lock ("" : `make test`'s own lock)."""
    tests: str
    """How the names of its test modules start (tests/field/<tests>…py)."""
    steps: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """A test function's steps where its name does not say them all (results.py)."""
    clients: tuple[tuple[str, str], ...] = ()
    """A test function's client where no `lang` or `client` parameter says it."""

    def locked_version(self) -> str | None:
        """The version the lock pins (None: no lock, or the package not in it)."""
        npm = self.lock / "package-lock.json"
        if npm.exists():
            packages = json.loads(npm.read_text(encoding="utf-8")).get("packages", {})
            entry = packages.get(f"node_modules/{self.package}", {})
            return entry.get("version") if isinstance(entry, dict) else None
        requirements = self.lock / "requirements.txt"
        if requirements.exists():
            name = re.escape(self.package).replace("\\-", "[-_.]")
            pinned = re.search(
                rf"^{name}==([^\s;\\]+)", requirements.read_text(encoding="utf-8"), re.M | re.I
            )
            return pinned.group(1) if pinned else None
        return None


AGENTS = (
    FieldAgent(
        "claude-agent-acp",
        "@agentclientprotocol/claude-agent-acp",
        "npm",
        "0.101.0",
        ROOT / "tests" / "interop" / "production",
        "",
        "test_claude",
        (
            (
                "test_a_turn_reads_a_file_and_writes_one_once_the_user_allows_it",
                ("words", "read", "write allowed"),
            ),
            (
                "test_a_write_the_user_rejects_is_never_written_and_the_turn_goes_on",
                ("write rejected",),
            ),
            ("test_ctrl_c_during_a_long_answer_ends_the_turn_cancelled", ("cancel",)),
            ("test_v1_a_conversation_comes_back_in_a_new_process", ("load/resume",)),
        ),
        (
            ("test_v1_a_conversation_comes_back_in_a_new_process", "python typed"),
            (
                "test_v2_resume_from_the_start_replays_the_conversation_in_a_new_process",
                "python typed",
            ),
        ),
    ),
    FieldAgent(
        "codex-acp",
        "@agentclientprotocol/codex-acp",
        "npm",
        "2.6.0",
        LOCKS / "codex",
        "tests.field.codex",
        "test_codex",
    ),
    FieldAgent(
        "gemini-cli",
        "@google/gemini-cli",
        "npm",
        "0.61.0",
        LOCKS / "gemini",
        "tests.field.gemini",
        "test_gemini",
    ),
    FieldAgent(
        "opencode",
        "opencode-ai",
        "npm",
        "1.18.33",
        LOCKS / "opencode",
        "tests.field.opencode",
        "test_opencode",
    ),
    FieldAgent(
        "fast-agent",
        "fast-agent-mcp",
        "PyPI",
        "0.10.48",
        LOCKS / "fast-agent",
        "tests.field.fast_agent",
        "test_fast_agent",
    ),
    FieldAgent(
        "mistral-vibe",
        "mistral-vibe",
        "PyPI",
        "3.0.2",
        LOCKS / "mistral-vibe",
        "tests.field.mistral_vibe",
        "test_mistral",
    ),
)


def agent_of(module: str) -> FieldAgent | None:
    """The agent a test module (its stem: `test_claude_turns`) drives."""
    return next((agent for agent in AGENTS if module.startswith(agent.tests)), None)


def install(names: list[str]) -> int:
    """Install each agent (all, or those named) from its lock; 1 if one could not be."""
    failed = 0
    for agent in AGENTS:
        if names and agent.name not in names:
            continue
        if not agent.module:
            print(f"{agent.name} {agent.version}: installed by make's own lock", file=sys.stderr)
            continue
        began = time.monotonic()
        try:
            module = importlib.import_module(agent.module)
        except ModuleNotFoundError as error:
            print(f"{agent.name}: no module {agent.module} ({error})", file=sys.stderr)
            failed += 1
            continue
        try:
            module.install()
        except Exception as error:  # one agent's failure is reported, not fatal
            print(f"{agent.name}: install failed: {error}", file=sys.stderr)
            failed += 1
            continue
        seconds = time.monotonic() - began
        print(f"{agent.name} {agent.version}: installed in {seconds:.1f} s", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["install"]:
        sys.exit("usage: python -m tests.field.registry install [AGENT…]")
    sys.exit(install(sys.argv[2:]))
