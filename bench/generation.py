"""Workload (g): full and no-op regeneration time.

Runs the real CLI in fresh processes against a scratch copy of the project (schemas and the
committed `generated/`; `acp_codegen/` and `templates/` linked), so the checkout is never touched:
- full: `acp-codegen generate --force` of every pinned edition (v1 and v2, stable and unstable);
- full_v1: the same with the lock cut down to the v1 stable and unstable files (the figure the
  earlier runs measured, when only those were pinned);
- no-op: `acp-codegen generate` with nothing changed (the lock and hashes say so).
"""

from __future__ import annotations

import json
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
    """Seconds per full regeneration (all editions, and v1 only) and per no-op regeneration."""
    with tempfile.TemporaryDirectory() as tmp:
        root = _scratch(Path(tmp) / "project")
        v1_root = _scratch(Path(tmp) / "project-v1", protocol="v1")
        cli = [sys.executable, "-m", "acp_codegen.cli", "--root"]
        return {
            "full": timed([*cli, str(root), "generate", "--force"], full_runs),
            "full_v1": timed([*cli, str(v1_root), "generate", "--force"], full_runs),
            "noop": timed([*cli, str(root), "generate"], noop_runs),
        }


def _scratch(root: Path, protocol: str | None = None) -> Path:
    """A project copy; with `protocol`, its lock pins only that protocol's files."""
    root.mkdir()
    shutil.copytree(ROOT / "schema", root / "schema")
    shutil.copytree(ROOT / "generated", root / "generated")
    if protocol is not None:
        lock_path = root / "schema" / "lock.json"
        lock = json.loads(lock_path.read_text())
        lock["files"] = [f for f in lock["files"] if f["protocol"] == protocol]
        lock_path.write_text(json.dumps(lock, indent=2) + "\n")
    return root
