"""Running the suite on a row (layer: runner): its program built, then `python -m
acp_protocol.conformance agent --protocol <edition> --trace DIR --html FILE -- CMD`, exactly as a
user runs it, with the row's environment; what it found read back from the traces.

A row's result is a JSON object (docs/conformance/field.json holds one per row): the row's
names, the command, the exit status, the seconds, the counts by level and outcome, the failed
cases' ids, or the one line saying why it did not run. The failed cases' traces go with it for
the details page (publish.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .builds import BUILD, ROOT, BuildError, builds, shown
from .rows import Row

LEVELS = ("MUST", "SHOULD", "informative")
OUTCOMES = ("pass", "fail", "skip")
SUITE_TIMEOUT = 1800
"""Seconds a whole row may take (the suite's own deadlines end each case long before)."""
OPTIONS = ("--jobs", str(os.cpu_count() or 1), "--timeout", "10")
"""The suite's options for every row: a case per core, and 10 s for one answer (the suite's
default is 5 s): a row measures the program's answers, not how busy the machine was (an agent on
a Python SDK takes a second of CPU to start, and cases run side by side)."""


@dataclass
class RowRun:
    result: dict[str, Any]
    """The row's entry of field.json."""
    failures: list[dict[str, Any]]
    """The traces of its failed cases (docs/conformance.md, "The trace format")."""


def entry(row: Row) -> dict[str, Any]:
    return {
        "key": row.key,
        "mode": row.mode,
        "implementation": row.implementation,
        "version": row.version,
        "edition": row.protocol,
        "origin": row.origin,
        "program": row.program,
        "rerun": row.rerun,
        "date": datetime.now(UTC).date().isoformat(),
    }


def run_row(
    row: Row,
    only: Sequence[str] = (),
    folder: Path | None = None,
    wrap: Callable[[Sequence[str]], Sequence[str]] | None = None,
) -> RowRun:
    """Build the row's program and run the suite on it (the cases matching `only`, else all),
    its traces and page written to `folder` (.build/conformance-field/runs/<key>); `wrap` gives
    the command line the suite starts instead of the program's (a recorder in front of it), the
    result still naming the program's."""
    result = entry(row)
    try:
        program = builds()[row.build]()
    except BuildError as error:
        return RowRun(result | {"error": f"not built: {error}"}, [])
    folder = folder or BUILD / "runs" / row.key
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    argv = [sys.executable, "-m", "acp_protocol.conformance", row.mode, "--protocol", row.protocol]
    argv += ["--trace", str(folder / "traces"), "--html", str(folder / "report.html")]
    argv += [*OPTIONS, *row.options, *(f"--only={glob}" for glob in only)]
    command = [*program.command, *row.arguments]
    began = time.monotonic()
    done = subprocess.run(
        [*argv, "--", *(wrap(command) if wrap else command)],
        cwd=ROOT,
        env=program.environment(),
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT,
        check=False,
    )
    seconds = time.monotonic() - began
    (folder / "stdout.txt").write_text(done.stdout, encoding="utf-8")
    result |= {"command": shown(command), "status": done.returncode}
    if done.returncode not in (0, 1):
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        return RowRun(result | {"error": f"the suite did not run: {lines[-1]}"}, [])
    traces = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((folder / "traces").glob("*.json"))
    ]
    counts = {
        level: {
            outcome: sum(1 for t in traces if t["level"] == level and t["outcome"] == outcome)
            for outcome in OUTCOMES
        }
        for level in LEVELS
    }
    failures = [t for t in traces if t["outcome"] == "fail"]
    result |= {
        "seconds": round(seconds, 1),
        "options": " ".join([*OPTIONS, *row.options]),
        "cases": len(traces),
        "counts": counts,
        "failed": [t["caseId"] for t in failures],
    }
    return RowRun(result, failures)
