"""The benchmark report: docs/benchmarks.md (from `benchmarks.md.jinja`) and a bar chart PNG.

Reads only the results dict `run.py` writes to bench/results.json, so the report can be rendered
again from a results file: python bench/report.py bench/results.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jinja2
import matplotlib

matplotlib.use("Agg")  # no display: render straight to the PNG file

import matplotlib.pyplot as plt
import matplotlib.ticker as ticker

TEMPLATES = Path(__file__).resolve().parent / "templates"
IMPLEMENTATIONS = ("ours", "official", "floor")
GO_PAIRS = ("ours-go", "coder-go")
COLOURS = {
    "ours": "#2b6cb0",
    "official": "#dd6b20",
    "floor": "#718096",
    "ours-go": "#2c7a7b",
    "coder-go": "#b7791f",
}
WORKLOAD_TITLES = {
    "notify": "(a) session/update\nnotifications / s",
    "rt1": "(b) fs/read_text_file\nround trips / s, 1 in flight",
    "rt64": "(c) the same,\n64 in flight",
}


def _thousands(value: float) -> str:
    return f"{value:,.0f}"


def _fixed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_markdown(results: dict[str, Any], plot_name: str) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["thousands"] = _thousands
    environment.filters["fixed"] = _fixed
    template = environment.get_template("benchmarks.md.jinja")
    return template.render(r=results, plot=plot_name, titles=WORKLOAD_TITLES)


def render_plot(results: dict[str, Any], path: Path) -> None:
    """One panel per workload, one bar per implementation (median; whiskers: min-max)."""
    panels: list[tuple[str, dict[str, Any], str]] = []
    for kind, title in WORKLOAD_TITLES.items():
        panels.append((title, results["throughput"][kind], "per second"))
    memory = {
        name: {"median": results["memory"][name]}
        for name in (*IMPLEMENTATIONS, *GO_PAIRS)
        if name in results["memory"]
    }
    panels.append(("(e) memory per\npending request", memory, "bytes"))
    imports = results["imports"]
    import_cost = {
        "ours": {"median": imports["ours_agent"]["cost"] * 1e3},
        "official": {"median": imports["official_acp"]["cost"] * 1e3},
    }
    panels.append(("(f) import time over\ninterpreter start-up", import_cost, "milliseconds"))
    figure, axes = plt.subplots(1, len(panels), figsize=(3.1 * len(panels), 3.8))
    for axis, (title, by_name, unit) in zip(axes, panels, strict=True):
        names = [name for name in (*IMPLEMENTATIONS, *GO_PAIRS) if name in by_name]
        medians = [by_name[name]["median"] for name in names]
        low = [
            by_name[name]["median"] - by_name[name].get("min", by_name[name]["median"])
            for name in names
        ]
        high = [
            by_name[name].get("max", by_name[name]["median"]) - by_name[name]["median"]
            for name in names
        ]
        bars = axis.bar(
            names, medians, color=[COLOURS[name] for name in names], yerr=[low, high], capsize=3
        )
        axis.set_title(title, fontsize=9)
        axis.set_ylabel(unit, fontsize=8)
        axis.tick_params(labelsize=8)
        if len(names) > 3:  # the memory panel, with the Go pairs
            axis.tick_params(axis="x", labelrotation=25)
        axis.yaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:,.0f}"))
        axis.bar_label(bars, labels=[f"{value:,.0f}" for value in medians], fontsize=7)
        axis.margins(y=0.12)
    versions = results["versions"]
    figure.suptitle(
        f"acp-codegen {versions['acp_codegen']} (ours) vs {versions['official_sdk']} vs the NDJSON "
        f"floor — medians of {results['settings']['runs']} runs, N = {results['settings']['n']:,}",
        fontsize=10,
    )
    figure.tight_layout()
    # No "Software" tag (matplotlib version): the same results give the same bytes.
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)


def write(results: dict[str, Any], markdown_path: Path, plot_path: Path) -> None:
    render_plot(results, plot_path)
    markdown_path.write_text(render_markdown(results, plot_path.name))


if __name__ == "__main__":
    source = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results.json")
    docs = Path(__file__).resolve().parents[1] / "docs"
    write(json.loads(source.read_text()), docs / "benchmarks.md", docs / "benchmarks.png")
