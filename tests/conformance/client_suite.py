"""Running `python -m acp_protocol.conformance client` as a user does (a subprocess), with the
starter clients' command line: the prompt as `{prompt}`, the agent as `{agent}` after `--`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tests.conformance.suite import Run, run_suite
from tests.paths import ROOT

BROKEN = ROOT / "tests" / "conformance" / "broken"

STARTER_ARGS = ("--prompt", "{prompt}", "--", "{agent}")
"""How a starter client (tests/starters/table.py) is told its prompt and its agent."""


def run_client_suite(
    client: Sequence[str], *options: str, trace: Path | None = None, timeout: float = 300
) -> Run:
    """The client suite against the client `client` starts (options before `--`)."""
    return run_suite(
        [*client, *STARTER_ARGS], *options, trace=trace, timeout=timeout, mode="client"
    )


def broken_client(name: str) -> list[str]:
    """The command line of a client fixture of tests/conformance/broken, by path: the suite
    runs a client in a folder of its own."""
    return [sys.executable, str(BROKEN / f"{name}.py")]
