"""Running `python -m acp_protocol.conformance agent` as a user does (a subprocess), and reading
what it wrote: its exit status, its lines, and its traces (one JSON file per case)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.paths import ROOT


@dataclass(frozen=True)
class Run:
    status: int
    stdout: str
    stderr: str
    seconds: float
    traces: dict[str, dict[str, Any]]
    """caseId → its trace (when the run was given a trace folder)."""

    def ids(self, outcome: str, *levels: str) -> set[str]:
        """The cases with this outcome (of these levels; all levels when none is named)."""
        return {
            case_id
            for case_id, trace in self.traces.items()
            if trace["outcome"] == outcome and (not levels or trace["level"] in levels)
        }


TEST_TIMEOUT = 10.0
"""Seconds one answer may take in these tests (the suite's default is 5): a case that fails
by a missing answer still fails, a loaded machine does not fail a case that passes."""


def run_suite(
    command: Sequence[str],
    *options: str,
    trace: Path | None = None,
    timeout: float = 300,
    mode: str = "agent",
) -> Run:
    """The suite (`mode`: agent or client) against `command` (options before `--`); traces
    read from `trace`."""
    argv = [sys.executable, "-m", "acp_protocol.conformance", mode, *options]
    if "--timeout" not in options:  # `make test` may share the machine: twice the default
        argv += ["--timeout", str(TEST_TIMEOUT)]
    if trace is not None:
        argv += ["--trace", str(trace)]
    began = time.monotonic()
    done = subprocess.run(
        [*argv, "--", *command], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    seconds = time.monotonic() - began
    traces = {}
    if trace is not None and trace.is_dir():
        for path in sorted(trace.glob("*.json")):
            loaded = json.loads(path.read_text(encoding="utf-8"))
            traces[loaded["caseId"]] = loaded
    return Run(done.returncode, done.stdout, done.stderr, seconds, traces)


def broken_agent(name: str) -> list[str]:
    """The command line of a fixture of tests/conformance/broken (run from the checkout's root,
    as `run_suite` runs the suite)."""
    return [sys.executable, "-m", f"tests.conformance.broken.{name}"]
