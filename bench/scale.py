"""Workload (m): K concurrent editors against 1, 2 and 4 agent server processes behind nginx.

Each run starts its own cluster: the server processes (bench/scale_agent.py: our Python target,
uvicorn on uvloop, sessions in PostgreSQL, in SQLite or nowhere; or the official TypeScript SDK's
bench agent, bench/stdio/ts/agent.mjs, which keeps no sessions), nginx in front of them with the
repository's config (deploy/nginx/acp.conf, tests/services/nginx.py) and one load process
(bench/scale_load.py: K editors over WebSocket, each running `flood UPDATES` turns back to back).
One PostgreSQL serves the whole bench (tests/services/postgres.py, fsync and synchronous_commit
on), a schema of its own per run. SQLite is one file on one machine: only with 1 process.

Per run: connections held (open and unfailed at the end), turns per second, p50 / p99 time from a
prompt sent to its first update, the servers' resident memory per connection (from /proc: after
a warm-up, then with the K connections idle, then the peak while they run turns), errors, and the
CPU each part used while the turns ran (servers, nginx, PostgreSQL, the load process), in cores,
the time their threads waited for a CPU (run queue), and the serving side's CPU per turn: the
busiest part, or the machine's cores when the waiting is high, is where the limit is.
Runs are interleaved (each K: every configuration), `rounds` times; a row is the median.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scale_report import cpu_ms_per_turn
from scale_run import label, one_run, store_argument

from tests.services import nginx, postgres

FULL: dict[str, Any] = {"ks": [10, 50, 200], "updates": 10, "seconds": 8.0}
SMOKE: dict[str, Any] = {"ks": [4], "updates": 5, "seconds": 1.0}
# (implementation, store, processes): the official TS SDK's server keeps no sessions, so it runs
# as one process (a second could not load or resume the first's sessions); SQLite is one file.
CONFIGS = [
    ("ts-sdk", "none", 1),
    ("ours", "none", 1),
    ("ours", "sqlite", 1),
    ("ours", "postgres", 1),
    ("ours", "postgres", 2),
    ("ours", "postgres", 4),
]
SMOKE_CONFIGS = [("ts-sdk", "none", 1), ("ours", "none", 1), ("ours", "sqlite", 1),
                 ("ours", "postgres", 2)]  # fmt: skip


def _median_row(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over the rounds; errors summed, every round's turns/s kept."""

    def median(pick: Any) -> Any:
        values = [pick(s) for s in samples if pick(s) is not None]
        return statistics.median(values) if values else None

    return {
        "held": min(s["held"] for s in samples),
        "turns_per_s": median(lambda s: s["turns_per_s"]),
        "turns_per_s_runs": [s["turns_per_s"] for s in samples],
        "first_p50_ms": median(lambda s: s["first_ms"]["p50"]),
        "first_p99_ms": median(lambda s: s["first_ms"]["p99"]),
        "idle_kib": median(lambda s: s["idle_kib"]),
        "active_kib": median(lambda s: s["active_kib"]),
        "errors": sum(s["errors"] for s in samples),
        "error_lines": sorted({line for s in samples for line in s["error_lines"]})[:5],
        "cores": {part: median(lambda s, p=part: s["cores"][p]) for part in samples[0]["cores"]},
        "waiting": median(lambda s: sum(s["waiting"].values())),
    }


def machine() -> dict[str, Any]:
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {
        "cpu": model,
        "cpus": os.cpu_count(),
        "platform": f"{os.uname().sysname} {os.uname().release}",
    }


def measure(python: str, env: dict[str, str], smoke: bool, rounds: int) -> dict[str, Any]:
    """Every configuration at every K (see the module); a configuration whose service cannot
    start here is left out with the one line saying why."""
    settings = dict(SMOKE if smoke else FULL)
    configs = SMOKE_CONFIGS if smoke else CONFIGS
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": machine(),
        "settings": {**settings, "rounds": rounds, "transport": "ws"},
        "load_average_before": os.getloadavg(),
        "skipped": {},
        "rows": [],
    }
    if nginx.binary() is None:
        result["skipped"] = {label(c): nginx.INSTALL for c in configs}
        return result
    try:
        database: postgres.Server | None = postgres.start(durable=True)
    except postgres.Unavailable as error:
        database = None
        for config in configs:
            if config[1] == "postgres":
                result["skipped"][label(config)] = str(error)
    postmaster = None
    if database is not None:
        postmaster = int((database.folder / "data" / "postmaster.pid").read_text().split()[0])
    folder = Path(tempfile.mkdtemp(prefix="acp-bench-scale-"))
    samples: dict[tuple[int, str], list[dict[str, Any]]] = {}
    try:
        for round_ in range(rounds):
            for k in settings["ks"]:
                for config in configs:
                    if label(config) in result["skipped"]:
                        continue
                    store = store_argument(config[1], folder, database)
                    run = one_run(config, k, settings, python, env, store, postmaster)
                    samples.setdefault((k, label(config)), []).append(run)
                    print(f"scale {label(config)} K={k}: {run['turns_per_s']:,.0f} turns/s,"
                          f" {run['errors']} errors", file=sys.stderr)  # fmt: skip
            print(f"scale round {round_ + 1}/{rounds} done", file=sys.stderr)
    finally:
        if database is not None:
            database.stop()
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()
    for (k, name), runs in samples.items():
        implementation, store, processes = next(c for c in configs if label(c) == name)
        row = {"config": name, "implementation": implementation, "store": store}
        result["rows"].append({**row, "processes": processes, "k": k, **_median_row(runs)})
    result["load_average_after"] = os.getloadavg()
    return result


def ratio(results: dict[str, Any], config: str, k: int) -> float | None:
    """turns/s of `config` over the official TS SDK's at the same K, this run."""
    rows = {(row["config"], row["k"]): row for row in results["rows"]}
    ours, official = rows.get((config, k)), rows.get(("ts-sdk none x1", k))
    if ours is None or official is None or not official["turns_per_s"]:
        return None
    return float(ours["turns_per_s"] / official["turns_per_s"])


def busiest(row: dict[str, Any]) -> str:
    part = max(row["cores"], key=lambda name: row["cores"][name])
    return f"{part} {row['cores'][part]:.2f}"


def summary(results: dict[str, Any]) -> list[str]:
    """The scale rows as lines of text, each beginning `scale`."""
    lines = [
        f"scale {'configuration':<19} {'K':>4} {'held':>5} {'turns/s':>8} {'/TS':>5}"
        f" {'p50 ms':>7} {'p99 ms':>7} {'idle KiB':>9} {'act KiB':>8} {'err':>4}"
        f" {'cores':>5} {'wait':>5} {'ms/turn':>7}  busiest"
    ]
    for row in results["rows"]:
        versus = ratio(results, row["config"], row["k"])
        lines.append(
            f"scale {row['config']:<19} {row['k']:>4} {row['held']:>5}"
            f" {row['turns_per_s']:>8,.0f} {'-' if versus is None else f'{versus:.2f}':>5}"
            f" {_ms(row['first_p50_ms']):>7} {_ms(row['first_p99_ms']):>7}"
            f" {row['idle_kib']:>9.0f} {row['active_kib']:>8.0f} {row['errors']:>4}"
            f" {sum(row['cores'].values()):>5.2f} {row['waiting']:>5.2f}"
            f" {_ms(cpu_ms_per_turn(row), 2):>7}  {busiest(row)}"
        )
    for name, reason in results["skipped"].items():
        lines.append(f"scale {name}: skipped: {reason}")
    return lines


def _ms(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 50: no errors anywhere; our one process without a store at least the official TS
    SDK's server in turns per second at the largest K both ran."""
    if not results["rows"]:
        return []
    rows = [
        {
            "workload": "scale",
            "measure": "errors, every configuration and K",
            "value": float(sum(row["errors"] for row in results["rows"])),
            "goal": 0.0,
            "at_most": True,
        }
    ]
    largest = max(results["settings"]["ks"])
    versus = ratio(results, "ours none x1", largest)
    if versus is not None:
        rows.append(
            {
                "workload": "scale",
                "measure": f"turns/s, K={largest}, ours x1 / TS SDK x1",
                "value": versus,
                "goal": 1.0,
            }
        )
    return rows
