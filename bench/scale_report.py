"""The scale rows on docs/scale.md: the figures block between its two markers, rendered from the
results file (bench/results-scale.json) and nothing else, so the page shows what was measured.

Run: python bench/scale_report.py [RESULTS]  (rewrites the block from RESULTS, by default
bench/results-scale.json; `make bench` and `bench/run.py --only scale` do it after measuring)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results-scale.json"
PAGE = BENCH.parent / "docs" / "scale.md"
BEGIN = "<!-- scale figures: rendered from bench/results-scale.json by bench/scale_report.py -->"
END = "<!-- end of scale figures -->"
PARTS = ("servers", "nginx", "postgres", "load")


def _number(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _ratio(results: dict[str, Any], row: dict[str, Any]) -> str:
    official = next(
        (r for r in results["rows"] if r["config"] == "ts-sdk none x1" and r["k"] == row["k"]),
        None,
    )
    if official is None or not official["turns_per_s"]:
        return "-"
    return f"{row['turns_per_s'] / official['turns_per_s']:.2f}"


def render(results: dict[str, Any]) -> str:
    """The block between the markers (markers excluded)."""
    machine, settings = results["machine"], results["settings"]
    before = ", ".join(f"{v:.2f}" for v in results["load_average_before"])
    after = ", ".join(f"{v:.2f}" for v in results["load_average_after"])
    lines = [
        f"Measured {results['date']} on {machine['cpu']}, {machine['cpus']} cores"
        f" ({machine['platform']}), load average {before} before and {after} after;"
        f" K editors over WebSocket through nginx, turns of {settings['updates']} updates back"
        f" to back for {settings['seconds']:g} s a run, the median of {settings['rounds']}"
        " interleaved rounds; PostgreSQL with fsync and synchronous_commit on.",
        "",
        "| server, processes | store | K | held | turns/s | / TS SDK | first update p50 / p99"
        " (ms) | KiB per connection, idle / active | errors | cores: servers / nginx /"
        " PostgreSQL / load | waiting for a CPU (cores) | CPU ms a turn |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in sorted(results["rows"], key=lambda r: (r["k"], _order(r))):
        server = "official TS SDK" if row["implementation"] == "ts-sdk" else "ours (Python)"
        cores = " / ".join(f"{row['cores'][part]:.2f}" for part in PARTS)
        lines.append(
            f"| {server}, {row['processes']} | {row['store']} | {row['k']} | {row['held']}"
            f" | {_number(row['turns_per_s'])} | {_ratio(results, row)}"
            f" | {_number(row['first_p50_ms'], 1)} / {_number(row['first_p99_ms'], 1)}"
            f" | {_number(row['idle_kib'])} / {_number(row['active_kib'])}"
            f" | {row['errors']} | {cores} | {row['waiting']:.2f}"
            f" | {_number(cpu_ms_per_turn(row), 2)} |"
        )
    lines += growth(results)
    for name, reason in results["skipped"].items():
        lines.append(f"\n{name}: not measured: {reason}")
    return "\n".join(lines) + "\n"


def growth(results: dict[str, Any]) -> list[str]:
    """From 1 to 4 processes on PostgreSQL at the largest K, and the CPU of each part."""
    k = max(results["settings"]["ks"])
    rows = {
        row["processes"]: row
        for row in results["rows"]
        if row["store"] == "postgres" and row["k"] == k
    }
    if 1 not in rows:
        return []
    one = rows[1]["turns_per_s"]
    steps = ", ".join(
        f"{n} {'process' if n == 1 else 'processes'} {_number(rows[n]['turns_per_s'])}"
        + ("" if n == 1 else f" ({rows[n]['turns_per_s'] / one:.2f} x 1)")
        for n in sorted(rows)
    )
    most = rows[max(rows)]
    cores = ", ".join(f"{part} {most['cores'][part]:.2f}" for part in PARTS)
    total = sum(most["cores"].values())
    cpus = results["machine"]["cpus"]
    costs = []
    for name, store in (("no store", "none"), ("SQLite", "sqlite"), ("PostgreSQL", "postgres")):
        row = next(
            (
                r
                for r in results["rows"]
                if (r["store"], r["processes"], r["k"]) == (store, 1, k)
                and r["implementation"] == "ours"
            ),
            None,
        )
        cost = None if row is None else cpu_ms_per_turn(row)
        if cost:
            costs.append(f"{cost:.2f} ms with {name} ({cpus * 1e3 / cost:,.0f} turns/s)")
    return [
        "",
        f"At K = {k} on PostgreSQL, turns/s with {steps}. With {max(rows)} processes the"
        f" parts used, in cores: {cores}; {total:.2f} of the machine's {cpus} in all, and"
        f" their threads waited {most['waiting']:.2f} cores' worth for a CPU. A turn cost the"
        f" serving side (one process of ours, nginx, PostgreSQL) {', '.join(costs)}: in"
        f" brackets, what the machine's {cpus} cores would serve at that cost with nothing else"
        " running.",
        *_ceiling(rows[1], cpus),
    ]


def _ceiling(row: dict[str, Any], cpus: int) -> list[str]:
    """What one process of ours can serve on a core of its own, and what N of them need."""
    per_turn = {part: row["cores"][part] / row["turns_per_s"] * 1e3 for part in PARTS}
    if not per_turn["servers"]:
        return []
    one = 1e3 / per_turn["servers"]
    four = 4 * one
    return [
        "",
        f"One process of ours is one Python thread: its own {per_turn['servers']:.2f} ms of CPU"
        f" a turn (PostgreSQL, 1 process, K = {row['k']}) cap it at {one:,.0f} turns/s on a core"
        f" of its own. Four such processes, a core each, would serve up to {four:,.0f} turns/s"
        f" if PostgreSQL ({per_turn['postgres']:.2f} ms a turn:"
        f" {per_turn['postgres'] * four / 1e3:.1f} cores at that rate), nginx"
        f" ({per_turn['nginx']:.2f} ms: {per_turn['nginx'] * four / 1e3:.1f}) and the editors"
        f" had cores too: about {(4 + (per_turn['postgres'] + per_turn['nginx']) * four / 1e3):.0f}"
        f" for the serving side, where this machine has {cpus} for everything.",
    ]


def cpu_ms_per_turn(row: dict[str, Any]) -> float | None:
    """CPU time a turn costs the serving side (servers, nginx, PostgreSQL; the load process
    left out), in ms: the figure a machine's cores divide, whatever else runs on it."""
    if not row["turns_per_s"]:
        return None
    serving = sum(row["cores"][part] for part in ("servers", "nginx", "postgres"))
    return float(serving / row["turns_per_s"] * 1e3)


def _order(row: dict[str, Any]) -> tuple[int, int, int]:
    implementation = 0 if row["implementation"] == "ts-sdk" else 1
    store = ("none", "sqlite", "postgres").index(row["store"])
    return implementation, store, row["processes"]


def shown(page: str) -> str:
    """The block the page shows now."""
    start, end = page.index(BEGIN) + len(BEGIN) + 1, page.index(END)
    return page[start:end]


def write_page(results: dict[str, Any], page: Path = PAGE) -> None:
    text = page.read_text()
    start, end = text.index(BEGIN) + len(BEGIN) + 1, text.index(END)
    page.write_text(text[:start] + render(results) + text[end:])


def save(results: dict[str, Any], out_dir: Path | None) -> None:
    """results-scale.json in `out_dir`; without one, bench/results-scale.json and the page."""
    (out_dir or BENCH).joinpath("results-scale.json").write_text(
        json.dumps(results, indent=2) + "\n"
    )
    if out_dir is None:
        write_page(results)


if __name__ == "__main__":
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else RESULTS
    write_page(json.loads(source.read_text()))
