"""A tiny run of the runtime benchmark: it must run end to end (no thresholds; speed is measured
by `make bench`, as ratios, never asserted in tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "runtime.py"


def test_runtime_benchmark_smoke_run_completes() -> None:
    completed = subprocess.run(
        [sys.executable, str(BENCH), "--smoke"], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    workloads = [line.split()[0] for line in completed.stdout.splitlines()[1:]]
    assert workloads == ["notify", "rt1", "rt64", "cancel", "memory"]
