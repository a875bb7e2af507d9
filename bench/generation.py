"""Workload (g): full and no-op regeneration time of v1 stable + unstable.

Runs the real CLI in fresh processes against a scratch copy of the project (schemas and the
committed `generated/`; `codegen/` and `templates/` linked), so the checkout is never touched:
- full: `acp-codegen generate --force` (every file rendered and formatted again);
- no-op: `acp-codegen generate` with nothing changed (the lock and hashes say so).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(
    command: list[str], runs: int, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> list[float]:
    """Wall-clock seconds of `command` in `runs` fresh processes."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=env)
        samples.append(time.perf_counter() - started)
    return samples


def measure(full_runs: int, noop_runs: int) -> dict[str, list[float]]:
    """Seconds per full and per no-op regeneration."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        shutil.copytree(ROOT / "schema", root / "schema")
        shutil.copytree(ROOT / "generated", root / "generated")
        for name in ("codegen", "templates"):
            (root / name).symlink_to(ROOT / name)
        cli = [sys.executable, "-m", "codegen.cli", "--root", str(root)]
        return {
            "full": timed([*cli, "generate", "--force"], full_runs),
            "noop": timed([*cli, "generate"], noop_runs),
        }
