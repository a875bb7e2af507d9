"""`bench/run.py --only SECTION`: one section's rows, run and printed with their goals, without the
rest of `make bench` (docs/benchmarks.md is left as it is).

- `remote`: the (k) rows, `--runs` rounds (3 at most, as in a full run), with each pair's ratio to
  the official TS SDK's; results-remote.json in `--out-dir` if given;
- `scale`: the (m) rows; results-scale.json in `--out-dir` if given, else bench/results-scale.json
  and docs/scale.md's figures;
- `recorder`: the (j) pairs that give the recorder's cost (`ours-uvloop` direct, behind a bare
  relay, behind `trace record`), `--runs` rounds interleaved, and its goal rows;
- `generator`: the (g) rows, `--regenerations` cold runs of ours and of the baseline, interleaved,
  and twice as many warm ones; results-generation.json in `--out-dir` if given.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Callable
from typing import Any

import generation
import remote
import scale
import scale_report
import two_process


def _environment() -> dict[str, str]:
    """This process's environment, with bytecode written (as an installed package has it)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def print_goals(rows: list[dict[str, Any]]) -> None:
    """One line per goal: the measure, its value and whether the goal is met."""
    for row in rows:
        met = row["value"] <= row["goal"] if row.get("at_most") else row["value"] >= row["goal"]
        verdict = "met" if met else "NOT met"
        print(f"{row['workload']:<9} {row['measure']:<44} {row['value']:7.2f}  {verdict}")


def only_remote(args: argparse.Namespace, machine: dict[str, Any]) -> None:
    rounds = 1 if args.smoke else min(args.runs, 3)
    n = 640 if args.smoke else args.n
    results = remote.measure(str(sys.executable), n, rounds, _environment())
    if args.out_dir is not None:
        (args.out_dir / "results-remote.json").write_text(json.dumps(results, indent=2) + "\n")
    print("\n".join(remote.summary(results)))
    print_goals(remote.goals(results))


def only_scale(args: argparse.Namespace, machine: dict[str, Any]) -> None:
    rounds = 1 if args.smoke else min(args.runs, 3)
    results = scale.measure(str(sys.executable), _environment(), args.smoke, rounds)
    scale_report.save(results, args.out_dir)
    print("\n".join(scale.summary(results)))
    print_goals(scale.goals(results))


def only_recorder(args: argparse.Namespace, machine: dict[str, Any]) -> None:
    n = 640 if args.smoke else args.n
    labels = ("ours-uvloop", "ours-uvloop-relayed", "ours-uvloop-recorded")
    rates = two_process.measure(
        str(sys.executable), str(args.official_python), n, args.runs, _environment(), only=labels
    )
    for label in labels:
        row = rates[label]
        figures = "  ".join(f"{kind} {row[kind]['median']:>9,.0f}" for kind in two_process.KINDS)
        print(f"{label:<22} {figures}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print_goals(two_process.recorder_goals(rates))


def only_generator(args: argparse.Namespace, machine: dict[str, Any]) -> None:
    runs = 1 if args.smoke else args.regenerations
    samples = generation.measure(runs, runs * 2, _environment(), baseline=not args.smoke)
    results: dict[str, dict[str, Any]] = {
        name: {"median": statistics.median(values), "runs": values}
        for name, values in samples.items()
    }
    if args.out_dir is not None:
        document = {"machine": machine, "generation": results}
        (args.out_dir / "results-generation.json").write_text(json.dumps(document, indent=2) + "\n")
    for name, result in sorted(results.items()):
        print(f"{name:<18} median {result['median']:7.3f} s of {len(result['runs'])} runs")
    print_goals(generation.goals(results, machine))


SECTIONS: dict[str, Callable[[argparse.Namespace, dict[str, Any]], None]] = {
    "remote": only_remote,
    "scale": only_scale,
    "generator": only_generator,
    "recorder": only_recorder,
}
