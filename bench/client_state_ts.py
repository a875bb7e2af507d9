"""Workload (s) on TypeScript: applying v2 updates to our TypeScript package's client state beside
decoding them, measured as the Python row is (`client_state.py`).

The same frames as the Python row (`client_state.stream`), written to a file and read by
bench/stdio/ours_ts/client_state.ts (built by `make ts-build` into .build/typescript), which in
one fresh node process, interleaved per run, times decoding them (`JSON.parse` and the generated
decoder) and applying the decoded params to a fresh `ClientState` of the v2 table, in CPU time,
each phase from a collected heap (node's garbage collector runs late: without it, a phase would
pay for the garbage of the one before) and with the collector on the timed thread
(`--single-threaded-gc`: no phase's CPU time holds the sweeping the one before left running);
the first rounds warm the compiler up, untimed. The goal
(issue 38): applying costs at most a quarter of decoding, as a ratio of medians.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import client_state

SCRIPT = (
    Path(__file__).resolve().parents[1] / ".build/typescript/dist-test/test/bench/client_state.js"
)


def measure(n: int, runs: int) -> dict[str, Any]:
    """The samples of a fresh node process, with their medians and the ratio apply / decode."""
    if not SCRIPT.exists():
        raise SystemExit(f"{SCRIPT} missing: run `make ts-build`")
    with tempfile.TemporaryDirectory(prefix="acp-bench-state-") as folder:
        frames = Path(folder) / "frames.jsonl"
        frames.write_bytes(b"\n".join(client_state.stream(n)) + b"\n")
        done = subprocess.run(
            ["node", "--expose-gc", "--single-threaded-gc", str(SCRIPT), str(frames), str(runs)],
            capture_output=True,
            text=True,
            check=True,
        )
    return client_state.with_ratio(json.loads(done.stdout), n)


def goals(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [client_state.goal_row(result, "TypeScript")]


if __name__ == "__main__":
    print(json.dumps(measure(20_000, 5)))
