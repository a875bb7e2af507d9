"""Workload (j): two processes over stdio, as editors run agents (bench/stdio/).

The client spawns the agent and both sides are the same implementation: ours (the generated
typed layer, full validation) on asyncio's loop and on uvloop, our generated TypeScript package on
node (bench/stdio/ours_ts, built by `make ts-build`), the official Python SDK (on asyncio, as it
runs), the official TypeScript SDK on node (from bench/stdio/ts's lock), our generated Go package
and coder/acp-go-sdk (bench/stdio/go, pinned in its go.mod, built here into .build/go/bench), and
the raw NDJSON floor on both loops. Pairs run interleaved, `rounds` times; each client reports
notify/s, round trips/s with 1 in flight and with 64 in flight (bench/stdio/schedule.py).
`pending_memory` is memory per pending request for the Go pairs (bench/stdio/go/pending_memory).

The recorder's cost (issue 49): `ours-uvloop-recorded` is the `ours-uvloop` pair with the agent
started through `python -m acp_protocol.trace record --out FILE --`, as an editor would record
it; its rates over the direct pair's, in the same rounds, are the recorder's overhead.
`ours-uvloop-relayed` is the same pair behind a relay that records nothing
(bench/stdio/bare_relay.py): what any process between the two costs, and so how much of the
recorder's cost is its recording.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

STDIO = Path(__file__).resolve().parent / "stdio"
OURS_TS = STDIO.parents[1] / ".build" / "typescript" / "dist-test" / "test" / "bench"
GO_BENCH = STDIO.parents[1] / ".build" / "go" / "bench"
"""The Go pairs' programs (bench/stdio/go, built by `make bench`): ours and coder/acp-go-sdk's."""
KINDS = ("notify", "rt1", "rt64")
RECORDING = Path(tempfile.gettempdir()) / "acp-bench-recording.jsonl"
"""Where the recorded pair's recorder writes (each run overwrites it)."""


def pairs(python: str, official: str) -> dict[str, tuple[list[str], list[str]]]:
    """Label → (client command before `--`, agent command), N inserted by `run`."""
    ts = ["node", str(STDIO / "ts" / "client.mjs")], ["node", str(STDIO / "ts" / "agent.mjs")]
    table: dict[str, tuple[list[str], list[str]]] = {"ts-node": ts}
    table["ours-ts-node"] = (
        ["node", str(OURS_TS / "client.js")],
        ["node", str(OURS_TS / "agent.js")],
    )
    for implementation in ("ours", "coder"):
        table[f"{implementation}-go"] = (
            [str(GO_BENCH / f"{implementation}_client")],
            [str(GO_BENCH / f"{implementation}_agent")],
        )
    for loop in ("asyncio", "uvloop"):
        table[f"floor-{loop}"] = (
            [python, str(STDIO / "floor_peer.py"), "client"],
            [python, str(STDIO / "floor_peer.py"), "agent", loop],
        )
        table[f"ours-{loop}"] = (
            [python, str(STDIO / "ours_client.py")],
            [python, str(STDIO / "ours_agent.py"), loop],
        )
    recorder = [python, "-m", "acp_protocol.trace", "record", "--out", str(RECORDING), "--"]
    client, agent = table["ours-uvloop"]
    table["ours-uvloop-recorded"] = (client, [*recorder, *agent])
    table["ours-uvloop-relayed"] = (client, [python, str(STDIO / "bare_relay.py"), *agent])
    table["official-asyncio"] = (
        [official, str(STDIO / "official_client.py")],
        [official, str(STDIO / "official_agent.py")],
    )
    return table


def build_go() -> None:
    """Build the Go pairs' programs (ours on generated/go, coder/acp-go-sdk's) into GO_BENCH; one
    line when Go is missing or the build fails."""
    go = shutil.which("go")
    if go is None:
        raise SystemExit(
            "bench: go not found on PATH: install Go 1.24 or newer (https://go.dev/dl/)"
        )
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false"}
    done = subprocess.run(
        [go, "build", "-o", str(GO_BENCH) + os.sep, "./..."],
        cwd=STDIO / "go",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"bench: building bench/stdio/go failed: {last}")


def versions() -> dict[str, str]:
    """The node and official TypeScript SDK versions of the `ts-node` pair."""
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    lock = json.loads((STDIO / "ts" / "package-lock.json").read_text())
    sdk = lock["packages"]["node_modules/@agentclientprotocol/sdk"]["version"]
    return {"node": node.stdout.strip().lstrip("v"), "ts": f"@agentclientprotocol/sdk {sdk}"}


def loop_of(label: str) -> str:
    return label.removesuffix("-recorded").removesuffix("-relayed").rsplit("-", 1)[1]


ATTEMPTS = 3
"""Runs of one pair in one round before the bench gives up: coder/acp-go-sdk's client closes
the connection when 1,024 notifications wait ("notification queue overflow"), which a busy
machine sometimes makes it do in the notify phase; such a run is counted in `failures`."""


def measure(
    python: str,
    official: str,
    n: int,
    rounds: int,
    env: dict[str, str],
    failures: dict[str, list[str]] | None = None,
    only: tuple[str, ...] = (),
) -> dict[str, dict[str, Any]]:
    """Median rates per pair (the `only` ones where given) and workload, with every run's
    figure; each failed run's last error line goes to `failures` under its pair."""
    samples: dict[str, dict[str, list[float]]] = {}
    table = {
        label: pair for label, pair in pairs(python, official).items() if label in only or not only
    }
    if any(label.endswith("-go") for label in table):
        build_go()
    for round_ in range(rounds):
        for label, (client, agent) in table.items():
            command = [*client, str(n), loop_of(label), "--", *agent]
            rates = _run_pair(label, command, env, failures if failures is not None else {})
            for kind in KINDS:
                samples.setdefault(label, {}).setdefault(kind, []).append(rates[kind])
        print(f"two-process round {round_ + 1}/{rounds} done", file=sys.stderr)
    return {
        label: {
            kind: {"median": statistics.median(values), "runs": values}
            for kind, values in by_kind.items()
        }
        for label, by_kind in samples.items()
    }


def _run_pair(
    label: str, command: list[str], env: dict[str, str], failures: dict[str, list[str]]
) -> dict[str, Any]:
    """One run's rates, after up to ATTEMPTS runs (a failed one is recorded in `failures`)."""
    for _ in range(ATTEMPTS):
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=900, env=env, cwd=STDIO
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode == 0 and lines:
            return dict(json.loads(lines[-1]))
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
        failures.setdefault(label, []).append(reason)
    raise SystemExit(f"two-process {label} failed {ATTEMPTS} times:\n{done.stderr[-2000:]}")


def pending_memory(count: int, runs: int) -> dict[str, float]:
    """Bytes per pending session/prompt of our Go package and coder/acp-go-sdk's, `count`
    pending on a peer that never answers; the median of `runs` fresh processes, alternated."""
    build_go()
    samples: dict[str, list[float]] = {"ours-go": [], "coder-go": []}
    for _ in range(runs):
        for label, by_label in samples.items():
            implementation = label.removesuffix("-go")
            command = [str(GO_BENCH / "pending_memory"), implementation, str(count)]
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                raise SystemExit(f"pending_memory {label} failed:\n{done.stderr[-2000:]}")
            by_label.append(json.loads(done.stdout.splitlines()[-1])["bytes_per_pending"])
    return {label: statistics.median(values) for label, values in samples.items()}


def goals(rates: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The two-process goals of the speed issue as ratios of this run's medians."""

    def ratio(ours: str, other: str, kind: str) -> float:
        return _ratio(rates, ours, other, kind)

    rows = [
        {
            "workload": f"2p {kind}",
            "measure": "ours (uvloop) / TS SDK (node)",
            "goal": 1.0,
            "value": ratio("ours-uvloop", "ts-node", kind),
        }
        for kind in KINDS
    ]
    # Issue 25: our TS target stays at or above 3 / 1.2 / 1.9 times the TS SDK.
    ts_goals = {"notify": 3.0, "rt1": 1.2, "rt64": 1.9}
    rows += [
        {
            "workload": f"2p {kind}",
            "measure": "our TS target / TS SDK (node)",
            "goal": ts_goals[kind],
            "value": ratio("ours-ts-node", "ts-node", kind),
        }
        for kind in KINDS
    ]
    # Issue 27: our Go pair at or above coder/acp-go-sdk's on every workload.
    rows += [
        {
            "workload": f"2p {kind}",
            "measure": "our Go target / coder/acp-go-sdk",
            "goal": 1.0,
            "value": ratio("ours-go", "coder-go", kind),
        }
        for kind in KINDS
    ]
    rows.append(
        {
            "workload": "2p notify",
            "measure": "ours / official Python SDK (asyncio)",
            "goal": 3.0,
            "value": ratio("ours-asyncio", "official-asyncio", "notify"),
        }
    )
    rows += recorder_goals(rates)
    for loop in ("asyncio", "uvloop"):
        for kind, goal in (("notify", 0.5), ("rt1", 0.7), ("rt64", 0.7)):
            rows.append(
                {
                    "workload": f"2p {kind}",
                    "measure": f"ours / floor ({loop})",
                    "goal": goal,
                    "value": ratio(f"ours-{loop}", f"floor-{loop}", kind),
                }
            )
    return rows


def _ratio(rates: dict[str, dict[str, Any]], ours: str, other: str, kind: str) -> float:
    return float(rates[ours][kind]["median"] / rates[other][kind]["median"])


def recorder_goals(rates: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Issue 49's rows: recording a conversation costs it at most a tenth of its pace, against
    the direct pair and against a relay that records nothing in the same rounds (a relay's two
    hand-overs per message are the part no recorder can avoid)."""
    references = (
        ("through trace record / direct (ours, uvloop)", "ours-uvloop"),
        ("through trace record / through a bare relay", "ours-uvloop-relayed"),
    )
    return [
        {
            "workload": f"2p {kind}",
            "measure": measure,
            "goal": 0.9,
            "value": _ratio(rates, "ours-uvloop-recorded", reference, kind),
        }
        for measure, reference in references
        for kind in KINDS
    ]
