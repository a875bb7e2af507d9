"""Workload (g): the generator's command line, cold and warm.

Runs the real CLI (`python -m acp_codegen.cli`) in fresh processes, from a frozen copy of the
checkout's generator (`acp_codegen/`, `templates/`, `schema/`, `generated/`), so the checkout is
never touched and an edit made meanwhile changes nothing measured. Every process finds compiled
bytecode (the caller's environment: bench/run.py's `Runner.env`), as an installed package has.
- full: `acp-codegen generate --force` of every pinned edition (v1 and v2, stable and unstable)
  and every target, cold: each run with an empty render cache (its own XDG_CACHE_HOME);
- full_v1: the same with the lock cut down to the v1 stable and unstable files (the figure the
  earlier runs measured, when only those were pinned);
- noop: `acp-codegen generate` with nothing changed (the lock and hashes say so);
- scaffold_warm: `acp-codegen scaffold agent --out FILE --force` with the render cache warm;
- check_warm: `acp-codegen check` of the committed tree with the render cache warm;
- baseline_full, baseline_scaffold: `generate --force` and `scaffold` of the generator as it was
  before the render cache (commit `BASELINE`, from `git archive`), interleaved with ours, so the
  ratios compare runs on the same machine at the same time. Without the git history (a shallow
  clone) there is no baseline and the ratios are left out.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "265f396"
"""The last commit whose generator had no render cache (issue 48: a fast CLI)."""
GENERATOR = ("acp_codegen", "templates", "schema")


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


def measure(
    full_runs: int, noop_runs: int, env: dict[str, str], baseline: bool = True
) -> dict[str, list[float]]:
    """Seconds per command, as the module's docstring lists them (without `baseline`, no
    baseline rows: the smoke run)."""
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        ours = _frozen_copy(top / "ours")
        v1_root = _scratch(top / "project-v1", ours, protocol="v1")
        before = _baseline(top / "baseline") if baseline else None
        warm_cache = top / "warm-cache"
        warm = {**env, "XDG_CACHE_HOME": str(warm_cache)}

        def cli(where: Path, *args: str) -> list[str]:
            return [sys.executable, "-m", "acp_codegen.cli", "--root", str(where), *args]

        def cold(name: str, command: list[str], cwd: Path, cache: Path | None = None) -> None:
            """One run with an empty render cache: `cache`, or a folder of its own."""
            fresh = cache or Path(tempfile.mkdtemp(dir=top, prefix="cold-cache-"))
            run_env = {**env, "XDG_CACHE_HOME": str(fresh)}
            samples.setdefault(name, []).extend(timed(command, 1, cwd=cwd, env=run_env))
            if cache is None:
                shutil.rmtree(fresh)

        scaffold = ["scaffold", "agent", "--out", str(top / "starter.py"), "--force"]
        for run in range(full_runs):  # interleaved: ours, then the baseline, run by run
            last = run == full_runs - 1  # its cache is the warm one below
            cold("full", cli(ours, "generate", "--force"), ours, warm_cache if last else None)
            if before is not None:
                cold("baseline_full", cli(before, "generate", "--force"), before)
                samples.setdefault("baseline_scaffold", []).extend(
                    timed(cli(before, *scaffold), 1, cwd=before, env=env)
                )
            cold("full_v1", cli(v1_root, "generate", "--force"), ours)
        timed(cli(ours, *scaffold), 1, cwd=ours, env=warm)  # the starter cached: untimed
        samples["noop"] = timed(cli(ours, "generate"), noop_runs, cwd=ours, env=warm)
        samples["scaffold_warm"] = timed(cli(ours, *scaffold), noop_runs, cwd=ours, env=warm)
        samples["check_warm"] = timed(cli(ours, "check"), noop_runs, cwd=ours, env=warm)
    return samples


def _frozen_copy(top: Path) -> Path:
    """The checkout's generator and its committed `generated/`, as they are now."""
    top.mkdir()
    for name in (*GENERATOR, "generated"):
        shutil.copytree(ROOT / name, top / name, ignore=shutil.ignore_patterns("__pycache__"))
    return top


def _baseline(top: Path) -> Path | None:
    """The generator at `BASELINE`, or None without that commit."""
    top.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BASELINE, *GENERATOR],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", str(top)], input=archive.stdout, check=True)
    return top


def _scratch(root: Path, ours: Path, protocol: str) -> Path:
    """A project whose lock pins only `protocol`'s files (generated by the copy `ours`)."""
    root.mkdir()
    shutil.copytree(ours / "schema", root / "schema")
    shutil.copytree(ours / "generated", root / "generated")
    lock_path = root / "schema" / "lock.json"
    lock = json.loads(lock_path.read_text())
    lock["files"] = [f for f in lock["files"] if f["protocol"] == protocol]
    lock_path.write_text(json.dumps(lock, indent=2) + "\n")
    return root


GOALS = {"scaffold_warm": 0.5, "check_warm": 3.0}
"""Seconds (issue 48): a warm `scaffold` and a warm `check`."""


def goals(generation: dict[str, Any], machine: dict[str, Any]) -> list[dict[str, Any]]:
    """The generator's goals: warm `scaffold` and `check` times on this machine, and cold
    `generate` no slower than the baseline's in the same run."""
    where = f"{machine['cpu']}, {machine['cpus']} CPUs"
    rows = [
        {
            "workload": "generator",
            "measure": f"warm `{command}` (s; {where})",
            "value": generation[name]["median"],
            "goal": GOALS[name],
            "at_most": True,
        }
        for name, command in (("scaffold_warm", "scaffold"), ("check_warm", "check"))
    ]
    if "baseline_full" in generation:
        full, baseline = generation["full"]["median"], generation["baseline_full"]["median"]
        rows.append(
            {
                "workload": "generator",
                "measure": f"cold `generate --force`, every edition and target / {BASELINE}'s",
                "value": full / baseline,
                "goal": 1.0,
                "at_most": True,
            }
        )
    return rows
