"""Generation and import-time benchmark (`make bench`; never part of `make test`).

Measures, as medians over fresh processes:
- full regeneration of v1 stable + unstable (`acp-codegen generate --force` into a temp folder);
- a no-op regeneration (`acp-codegen generate` with nothing changed);
- `import acp_protocol.v1` and `from acp_protocol.v1 import models, methods`;
- bare interpreter start-up, as the baseline the import figures are measured over.
Writes bench/results-generation.json and prints a table. Reference figures from
../shared/research/acp-python-sdk.md (same 2-core machine kind): the official SDK's pipeline
takes 4.4-5.5 s; its `import acp` 0.52 s.
"""

from __future__ import annotations

import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "codegen.cli"]


def timed(command: list[str], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        shutil.copytree(ROOT / "schema", root / "schema")
        shutil.copytree(ROOT / "generated", root / "generated")
        for name in ("codegen", "templates"):
            (root / name).symlink_to(ROOT / name)
        full = timed([*CLI, "--root", str(root), "generate", "--force"], 5)
        noop = timed([*CLI, "--root", str(root), "generate"], 10)
    bare = timed([sys.executable, "-c", "pass"], 20)
    lazy = timed([sys.executable, "-c", "import acp_protocol.v1"], 20)
    eager = timed([sys.executable, "-c", "from acp_protocol.v1 import models, methods"], 20)
    for name, samples in {
        "full_regeneration_s": full,
        "noop_regeneration_s": noop,
        "python_startup_s": bare,
        "import_acp_protocol_v1_s": lazy,
        "import_models_and_methods_s": eager,
    }.items():
        results[name] = {
            "median": statistics.median(samples),
            "min": min(samples),
            "max": max(samples),
            "runs": len(samples),
        }
    baseline = results["python_startup_s"]["median"]
    results["import_acp_protocol_v1_s"]["over_startup"] = (
        results["import_acp_protocol_v1_s"]["median"] - baseline
    )
    results["import_models_and_methods_s"]["over_startup"] = (
        results["import_models_and_methods_s"]["median"] - baseline
    )
    report = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "results": results,
    }
    (ROOT / "bench" / "results-generation.json").write_text(json.dumps(report, indent=2) + "\n")
    for name, row in results.items():
        extra = f"  (over start-up {row['over_startup']:.3f})" if "over_startup" in row else ""
        print(f"{name:32} median {row['median']:.3f}  [{row['min']:.3f}-{row['max']:.3f}]{extra}")


if __name__ == "__main__":
    main()
