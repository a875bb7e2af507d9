"""`make bench`: every workload against ours, the official SDK and the NDJSON floor, one invocation.

Each measurement runs in a fresh process (`bench/impl_<name>.py <workload> <size>`, see
`workloads.py`); runs are interleaved (run 1 of every implementation, then run 2, …) so a noisy
spell of the machine hits all three alike, and every ratio compares medians of the same run.
Writes bench/results.json, docs/benchmarks.md and docs/benchmarks.png (`report.py`).
Run: python bench/run.py [--n 20000] [--runs 5] [--official-python PATH] [--smoke --out-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import client_state
import client_state_go
import client_state_ts
import field
import generation
import only
import remote
import report
import robustness
import scale
import scale_report
import two_process

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OFFICIAL_PYTHON = ROOT / ".venv-official" / "bin" / "python"
THROUGHPUT = ("notify", "rt1", "rt64")
IMPLEMENTATIONS = ("ours", "official", "floor")


def stats(samples: list[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "runs": samples,
    }


class Runner:
    """Runs measurements in fresh processes, every one with compiled bytecode at hand.

    An installed package has its bytecode compiled (pip does it); our package is an editable
    install of `generated/python`, and this machine may set PYTHONDONTWRITEBYTECODE. So every
    process shares one bytecode cache directory (PYTHONPYCACHEPREFIX) with writing allowed, and
    each import is run once, untimed, before it is measured: both SDKs load from bytecode.
    """

    def __init__(self, official_python: Path, bytecode_dir: Path) -> None:
        self.python = {
            "ours": Path(sys.executable),
            "floor": Path(sys.executable),
            "official": official_python,
        }
        self.env = {
            key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
        }
        self.env["PYTHONPYCACHEPREFIX"] = str(bytecode_dir)

    def measure(self, implementation: str, workload: str, size: int) -> dict[str, Any]:
        command = [
            str(self.python[implementation]),
            str(BENCH / f"impl_{implementation}.py"),
            workload,
            str(size),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=self.env)
        if done.returncode != 0:
            raise SystemExit(f"{implementation} {workload} failed:\n{done.stderr}")
        result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
        return result

    def import_seconds(self, python: Path, statement: str, runs: int) -> list[float]:
        return generation.timed([str(python), "-c", statement], runs, env=self.env)


def throughput(runner: Runner, n: int, runs: int) -> dict[str, Any]:
    samples: dict[str, dict[str, list[float]]] = {
        kind: {name: [] for name in IMPLEMENTATIONS} for kind in THROUGHPUT
    }
    for run in range(runs):
        for kind in THROUGHPUT:
            for name in IMPLEMENTATIONS:
                samples[kind][name].append(runner.measure(name, kind, n)["rate"])
        print(f"throughput run {run + 1}/{runs} done", file=sys.stderr)
    return {
        kind: {name: stats(rates) for name, rates in by_name.items()}
        for kind, by_name in samples.items()
    }


SESSION_METHODS = (
    "initialize",
    "session/new",
    "session/prompt",
    "session/cancel",
    "session/update",
    "session/request_permission",
    "fs/read_text_file",
)
# Our models are built on first use (a method's group of classes, then its validator): the agent
# side ready to serve a session, to set beside `import acp`, which builds everything at import.
SESSION_READY = (
    "import acp_protocol.v1.agent; "
    "from acp_protocol.v1.methods import METHODS; "
    "from acp_protocol.runtime.validators import validator_for; "
    f"[validator_for(t) for s in METHODS if s.name in {SESSION_METHODS!r} "
    "for t in (s.params_type, s.result_type) if t is not None]"
)


def imports(runner: Runner, runs: int) -> dict[str, Any]:
    """Fresh interpreters, alternated; import cost is the median over the same env's start-up."""
    ours, official = runner.python["ours"], runner.python["official"]
    statements = {
        "ours_startup": (ours, "pass"),
        "ours_package": (ours, "import acp_protocol.v1"),
        "ours_agent": (ours, "import acp_protocol.v1.agent"),
        "ours_client": (ours, "import acp_protocol.v1.client"),
        "ours_session_ready": (ours, SESSION_READY),
        "official_startup": (official, "pass"),
        "official_acp": (official, "import acp"),
    }
    samples: dict[str, list[float]] = {name: [] for name in statements}
    for python, statement in statements.values():
        runner.import_seconds(python, statement, 1)  # compiles and caches the bytecode
    for _ in range(runs):
        for name, (python, statement) in statements.items():
            samples[name] += runner.import_seconds(python, statement, 1)
    result = {name: stats(values) for name, values in samples.items()}
    for name in ("ours_package", "ours_agent", "ours_client", "ours_session_ready"):
        result[name]["cost"] = result[name]["median"] - result["ours_startup"]["median"]
    result["official_acp"]["cost"] = (
        result["official_acp"]["median"] - result["official_startup"]["median"]
    )
    return result


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each goal of issue 6 as a ratio of medians from this run, and whether it is met."""
    rates = results["throughput"]
    ours_latency = results["latency"]["ours"]
    imported = results["imports"]
    rows = []
    for kind, target in (("notify", 0.40), ("rt1", 0.70), ("rt64", 0.70)):
        ratio = rates[kind]["ours"]["median"] / rates[kind]["floor"]["median"]
        rows.append({"workload": kind, "measure": "ours / floor", "value": ratio, "goal": target})
    rows.append(
        {
            "workload": "cancel",
            "measure": "cancel p50 / round trip p50",
            "value": ours_latency["cancel_p50_ms"] / ours_latency["round_trip_p50_ms"],
            "goal": 1.5,
            "at_most": True,
        }
    )
    rows.append(
        {
            "workload": "cancel",
            "measure": "cancel p99 (ms)",
            "value": ours_latency["cancel_p99_ms"],
            "goal": 1.0,
            "at_most": True,
        }
    )
    rows.append(
        {
            "workload": "import",
            "measure": "import acp_protocol.v1.agent / import acp",
            "value": imported["ours_agent"]["cost"] / imported["official_acp"]["cost"],
            "goal": 0.3,
            "at_most": True,
        }
    )
    memory = results["memory"]
    rows.append(
        {
            "workload": "memory",
            "measure": "per pending request, our Go target / coder/acp-go-sdk",
            "value": memory["ours-go"] / memory["coder-go"],
            "goal": 1.0,
            "at_most": True,
        }
    )
    lines = results["robustness"]["long_lines"]
    rows.append(
        {
            "workload": "lines",
            "measure": "split 40 MB line / split 10 MB line (time)",
            "value": lines["40mb"] / lines["10mb"],
            "goal": 5.0,
            "at_most": True,
        }
    )
    rows.append(
        {
            "workload": "flood",
            "measure": "peak RSS (MB), 200k prompts, answers unread",
            "value": results["robustness"]["flood"]["peak_rss_mb"],
            "goal": 200.0,
            "at_most": True,
        }
    )
    return rows


def versions(official_python: Path) -> dict[str, str]:
    probe = (
        "import importlib.metadata as m, platform; "
        "print(platform.python_version(), m.version('agent-client-protocol'), "
        "m.version('pydantic'))"
    )
    official = subprocess.run(
        [str(official_python), "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    lock = json.loads((ROOT / "schema" / "lock.json").read_text())
    return {
        "python": platform.python_version(),
        "acp_codegen": version("acp-codegen"),
        "pydantic": version("pydantic"),
        "orjson": version("orjson"),
        "schema": f"{lock['package']} {lock['version']}",
        "official_python": official[0],
        "official_sdk": f"agent-client-protocol {official[1]}",
        "official_pydantic": official[2],
    }


def machine() -> dict[str, Any]:
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"platform": platform.platform(), "cpu": model, "cpus": os.cpu_count()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="messages per throughput run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cancels", type=int, default=2_000)
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--imports", type=int, default=20, help="fresh interpreters per import")
    parser.add_argument("--regenerations", type=int, default=5)
    parser.add_argument("--official-python", type=Path, default=OFFICIAL_PYTHON)
    parser.add_argument("--out-dir", type=Path, help="write all outputs here instead")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: it runs, nothing more")
    parser.add_argument(
        "--only",
        choices=tuple(only.SECTIONS),
        help="run only these rows and print them with their goals (docs/benchmarks.md is left as "
        "it is; see only.py)",
    )
    args = parser.parse_args()
    if args.out_dir is not None:
        try:  # checked before any row runs, not after minutes of them
            args.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SystemExit(f"bench: --out-dir {args.out_dir}: {error.strerror}") from None
    if args.only is not None:
        only.SECTIONS[args.only](args, machine())
        return
    if args.smoke:
        args.n, args.runs, args.cancels, args.pending = 640, 1, 20, 100
        args.imports, args.regenerations = 2, 1
    if not args.official_python.exists():
        raise SystemExit(f"{args.official_python} missing: `make bench` creates it")

    bytecode_dir = Path(tempfile.mkdtemp(prefix="acp-bench-bytecode-"))
    runner = Runner(args.official_python, bytecode_dir)
    results: dict[str, Any] = {
        "machine": machine(),
        "versions": versions(args.official_python),
        "settings": {
            "n": args.n,
            "runs": args.runs,
            "cancels": args.cancels,
            "pending": args.pending,
            "imports": args.imports,
            "regenerations": args.regenerations,
        },
        "throughput": throughput(runner, args.n, args.runs),
    }
    results["latency"] = {
        name: runner.measure(name, "latency", args.cancels) for name in IMPLEMENTATIONS
    }
    results["memory"] = {
        name: runner.measure(name, "memory", args.pending)["bytes_per_pending"]
        for name in IMPLEMENTATIONS
    }
    results["imports"] = imports(runner, args.imports)
    flood_count, flood_seconds = (2_000, 2.0) if args.smoke else (200_000, 10.0)
    results["robustness"] = {
        "long_lines": robustness.long_lines(runs=1 if args.smoke else 3),
        "flood": robustness.flood(flood_count, flood_seconds),
    }
    regeneration = generation.measure(
        args.regenerations, args.regenerations * 2, runner.env, baseline=not args.smoke
    )
    results["generation"] = {name: stats(samples) for name, samples in regeneration.items()}
    rounds = 1 if args.smoke else min(args.runs, 3)
    results["settings"]["two_process_rounds"] = rounds
    results["two_process_failures"] = {}
    results["two_process"] = two_process.measure(
        str(sys.executable),
        str(args.official_python),
        args.n,
        rounds,
        runner.env,
        results["two_process_failures"],
    )
    results["two_process_versions"] = two_process.versions()
    results["memory"].update(two_process.pending_memory(args.pending, rounds))
    results["remote"] = remote.measure(str(sys.executable), args.n, rounds, runner.env)
    results["client_state"] = client_state.measure(
        str(sys.executable), args.n, args.runs, runner.env
    )
    results["client_state_ts"] = client_state_ts.measure(args.n, args.runs)
    results["client_state_go"] = client_state_go.measure(args.n, args.runs)
    results["field"] = field.measure(
        str(sys.executable), **(field.SMOKE if args.smoke else field.FULL)
    )
    out = args.out_dir
    results["scale"] = scale.measure(str(sys.executable), runner.env, args.smoke, rounds)
    scale_report.save(results["scale"], out)
    results["goals"] = (
        goals(results)
        + two_process.goals(results["two_process"])
        + remote.goals(results["remote"])
        + client_state.goals(results["client_state"])
        + client_state_ts.goals(results["client_state_ts"])
        + client_state_go.goals(results["client_state_go"])
        + field.goals(results["field"])
        + scale.goals(results["scale"])
        + generation.goals(results["generation"], results["machine"])
    )
    for row in results["goals"]:
        at_most = row.setdefault("at_most", False)
        row["met"] = row["value"] <= row["goal"] if at_most else row["value"] >= row["goal"]
    shutil.rmtree(bytecode_dir, ignore_errors=True)

    results_path = (out or BENCH) / "results.json"
    results_path.write_text(json.dumps(results, indent=2) + "\n")
    report.write(
        results, (out or ROOT / "docs") / "benchmarks.md", (out or ROOT / "docs") / "benchmarks.png"
    )
    print("\n".join(scale.summary(results["scale"])))
    for row in results["goals"]:
        verdict = "met" if row["met"] else "NOT met"
        sign = "<=" if row["at_most"] else ">="
        goal = f"goal {sign} {row['goal']}: {verdict}"
        print(f"{row['workload']:<9} {row['measure']:<44} {row['value']:7.2f}  {goal}")


if __name__ == "__main__":
    main()
