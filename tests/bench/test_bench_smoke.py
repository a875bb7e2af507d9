"""A tiny run of `make bench`: it must run end to end and write the report, the chart and the
results (no thresholds; speed is measured by `make bench` as ratios, never asserted in tests).

The official SDK comes from this environment (the dev extra pins the same 0.12.1 that
`make bench` installs into .venv-official), so the test needs no second environment.
Row (l) starts claude-agent-acp (tests/interop/production, installed by `make test`) once per
client, four in all, for one short turn each against the loopback mock: the smoke's largest share.
Rows (m) start PostgreSQL, nginx and a small cluster four times, K = 4 editors each, 1 s of turns.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "run.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_bench_smoke_run_writes_results_report_and_chart(tmp_path: Path) -> None:
    command = [
        sys.executable,
        str(BENCH),
        "--smoke",
        "--official-python",
        sys.executable,
        "--out-dir",
        str(tmp_path),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr

    results = json.loads((tmp_path / "results.json").read_text())
    for kind in ("notify", "rt1", "rt64"):
        for name in ("ours", "official", "floor"):
            assert results["throughput"][kind][name]["median"] > 0
    assert results["latency"]["ours"]["cancel_p99_ms"] > 0
    assert results["latency"]["official"]["cancel_p50_ms"] is None  # unsupported
    assert set(results["memory"]) == {"ours", "official", "floor", "ours-go", "coder-go"}
    assert all(bytes_per_pending > 0 for bytes_per_pending in results["memory"].values())
    assert results["imports"]["official_acp"]["cost"] is not None
    assert results["generation"]["noop"]["median"] > 0
    goals = {(goal["workload"], goal["measure"]) for goal in results["goals"]}
    scale = results["scale"]  # K = 4 editors; left out, one line each, where nginx is missing
    scale_goals = 2 if scale["rows"] else 0
    # 51, then the recorder over a bare relay (3) and our Go pair over WebSocket (3)
    assert len(goals) == 57 + scale_goals
    assert ("2p rt1", "through trace record / through a bare relay") in goals
    assert ("ws rt1", "our Go target / TS SDK (node), remote") in goals
    for row in scale["rows"]:
        assert row["held"] == 4 and row["turns_per_s"] > 0
        assert row["first_p50_ms"] <= row["first_p99_ms"]
    assert {row["config"] for row in scale["rows"]} | set(scale["skipped"]) == {
        "ts-sdk none x1",
        "ours none x1",
        "ours sqlite x1",
        "ours postgres x2",
    }
    assert (tmp_path / "results-scale.json").exists()
    assert ("ws rt1", "ours (uvloop) / TS SDK (node), remote") in goals
    assert ("state", "apply updates / decode them (Python, v2)") in goals
    assert ("state", "apply updates / decode them (TypeScript, v2)") in goals
    assert ("state", "apply updates / decode them (Go, v2)") in goals
    assert results["client_state"]["ratio"] > 0
    assert results["client_state_ts"]["ratio"] > 0
    assert results["client_state_go"]["ratio"] > 0
    field = results["field"]  # claude-agent-acp, one short turn per client
    assert set(field["clients"]) == {"ours-python", "ours-ts", "ours-go", "official-ts"}
    for client in field["clients"].values():
        assert 0 < client["first_ms"]["median"] <= client["end_ms"]["median"]
        assert client["chunks"] >= field["settings"]["deltas"]
    assert field["survivors"] == 0
    assert ("field", "first chunk, our Python / TS SDK") in goals
    assert ("field", "turn's end, our Go / TS SDK") in goals
    pairs = (
        {"ts-node", "ours-ts-node", "official-asyncio", "ours-go", "coder-go"}
        | {f"{name}-{loop}" for name in ("ours", "floor") for loop in ("asyncio", "uvloop")}
        | {"ours-uvloop-recorded", "ours-uvloop-relayed"}
    )
    assert set(results["two_process"]) == pairs
    assert ("2p rt1", "through trace record / direct (ours, uvloop)") in goals
    for rates in results["two_process"].values():
        assert all(rates[kind]["median"] > 0 for kind in ("notify", "rt1", "rt64"))
    for transport in ("http", "ws"):
        remote = results["remote"]["rates"][transport]
        go = {"ours-go"} if transport == "ws" else set()  # our Go server: WebSocket only
        assert set(remote) == {"ts-node", "ours-ts-node", "ours-uvloop"} | go
        assert all(
            rates[kind]["median"] > 0 for rates in remote.values() for kind in ("rt1", "rt64")
        )
    assert set(results["remote"]["idle_connection_kib"]) == {
        "ts-node",
        "ours-ts-node",
        "ours-uvloop",
    }
    assert results["robustness"]["flood"]["peak_rss_mb"] > 0
    assert results["robustness"]["long_lines"]["40mb"] > 0

    report = (tmp_path / "benchmarks.md").read_text()
    assert "![ours vs official vs floor, per workload](benchmarks.png)" in report
    assert "| (d) cancel → holding the -32800 answer, p50 / p99 |" in report
    assert report.count("| met |") + report.count("| **not met** |") == len(goals)
    assert "## (j) Two processes over stdio" in report
    assert "## (k) Remote agents" in report
    assert "## (l) A production agent's turn: claude-agent-acp 0.101.0" in report
    assert (tmp_path / "benchmarks.png").read_bytes().startswith(PNG_SIGNATURE)
    summary = completed.stdout.splitlines()
    scale_lines = 1 + len(scale["rows"]) + len(scale["skipped"])  # a header, then the rows
    assert [line.split()[0] for line in summary] == [
        *["scale"] * scale_lines,
        "notify",
        "rt1",
        "rt64",
        "cancel",
        "cancel",
        "import",
        "memory",
        "lines",
        "flood",
        *["2p"] * 22,  # with the recorder over a bare relay (3)
        *["http"] * 6,
        *["ws"] * 9,  # with our Go pair (3)
        "state",
        "state",
        "state",
        *["field"] * 6,
        *["scale"] * scale_goals,
        *["generator"] * 2,  # warm scaffold and check; the smoke run measures no baseline
    ]
