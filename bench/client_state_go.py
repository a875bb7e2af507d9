"""Workload (s) on Go: applying v2 updates to our generated Go package's client state beside
decoding them, measured as the Python row is (`client_state.py`).

The same frames as the Python row (`client_state.stream`), written to a file and read by
bench/stdio/go/client_state (built by `two_process.build_go` into .build/go/bench, on
generated/go), which in one fresh process, interleaved per run, times decoding each frame's params
into the generated `v2.UpdateSessionNotification` (its `UnmarshalJSON`, the schema's checks) and
applying the params, decoded as JSON values, to a fresh `acp.ClientState` of the v2 table. The
goal (issue 38): applying costs at most a quarter of decoding, as a ratio of medians. It also
reports `feed` (the params' bytes decoded as JSON values, then applied: what the generated client
handler adds per update, since Go's typed decode gives no JSON values to apply), not a goal row.
Run alone: python bench/client_state_go.py [N] [RUNS].
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import client_state
import two_process

PROGRAM = two_process.GO_BENCH / "client_state"


def measure(n: int, runs: int) -> dict[str, Any]:
    """The samples of a fresh Go process, with their medians and the ratios to decoding."""
    two_process.build_go()
    with tempfile.TemporaryDirectory(prefix="acp-bench-state-") as folder:
        frames = Path(folder) / "frames.jsonl"
        frames.write_bytes(b"\n".join(client_state.stream(n)) + b"\n")
        done = subprocess.run(
            [str(PROGRAM), str(frames), str(runs)],
            capture_output=True,
            text=True,
            check=True,
        )
    result = client_state.with_ratio(json.loads(done.stdout), n)
    feed, decode = (statistics.median(result[k]) for k in ("feed", "decode"))
    return {**result, "feed_ratio": feed / decode}


def goals(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [client_state.goal_row(result, "Go")]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(json.dumps(measure(count, rounds)))
