"""Workload (s): what keeping the client state costs beside decoding the updates that feed it.

A v2 session's stream of `session/update` frames (per prompt turn: the user message, running,
twenty agent message chunks, a tool call with three content chunks and its completion, usage,
idle), as bytes. In one fresh process, interleaved per run, in CPU time (`time.process_time`:
other processes on the machine change wall time, not CPU time), each phase from a collected heap
(`gc.collect()` before it, as the Go row's `runtime.GC()`: the cyclic garbage decoding leaves
is collected during whatever runs next, which is not what that costs):
- decode: each line parsed (orjson) and its params validated as `UpdateSessionNotification`, as
  the client's router does before anything sees the update;
- apply: the decoded params applied to a fresh `ClientState` of the v2 table
  (`ClientState.applier("session/update")`, what the client's router calls per update with the
  params it has validated, before it tells the state's listeners).
The goal (issue 38): applying costs at most a quarter of decoding, as a ratio of medians.
Run alone: python bench/client_state.py [N] [RUNS] prints the samples as JSON.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.25


def turn(index: int) -> list[dict[str, Any]]:
    """The updates of one prompt turn."""
    message, tool = f"a-{index}", f"t-{index}"
    text = {"type": "text", "text": "word "}
    updates: list[dict[str, Any]] = [
        {"sessionUpdate": "user_message", "messageId": f"u-{index}", "content": [text]},
        {"sessionUpdate": "state_update", "state": "running"},
    ]
    updates += [
        {"sessionUpdate": "agent_message_chunk", "messageId": message, "content": text}
        for _ in range(20)
    ]
    updates.append(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool,
            "title": "Read a.txt",
            "kind": "read",
            "status": "in_progress",
        }
    )
    updates += [
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": tool,
            "content": {"type": "content", "content": text},
        }
        for _ in range(3)
    ]
    updates += [
        {"sessionUpdate": "tool_call_update", "toolCallId": tool, "status": "completed"},
        {"sessionUpdate": "usage_update", "used": 1000 + index, "size": 200000},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
    ]
    return updates


def stream(n: int) -> list[bytes]:
    frames: list[bytes] = []
    index = 0
    while len(frames) < n:
        for update in turn(index):
            params = {"sessionId": "s-1", "update": update}
            frame = {"jsonrpc": "2.0", "method": "session/update", "params": params}
            frames.append(json.dumps(frame).encode())
        index += 1
    return frames[:n]


def samples(n: int, runs: int) -> dict[str, list[float]]:
    """Seconds to decode, and to apply, the same `n` updates, `runs` times interleaved."""
    import orjson
    from acp_protocol.runtime.client_state import ClientState
    from acp_protocol.runtime.validators import validator_for
    from acp_protocol.v2.methods import METHODS
    from acp_protocol.v2.state import STATE_TABLE

    spec = next(s for s in METHODS if s.name == "session/update")
    validate = validator_for(spec.params_type)
    lines = stream(n)
    decoded = [orjson.loads(line)["params"] for line in lines]
    validate(decoded[0])  # its models built once, untimed
    found: dict[str, list[float]] = {"decode": [], "apply": []}
    for _ in range(runs + 1):  # the first round warms up, untimed
        gc.collect()  # each phase starts from a collected heap: neither pays for the other's
        started = time.process_time()
        for line in lines:
            validate(orjson.loads(line)["params"])
        decode = time.process_time() - started
        apply_params = ClientState(STATE_TABLE).applier("session/update")
        gc.collect()
        started = time.process_time()
        for params in decoded:
            apply_params(params)
        apply = time.process_time() - started
        found["decode"].append(decode)
        found["apply"].append(apply)
    return {name: values[1:] for name, values in found.items()}


def measure(python: str, n: int, runs: int, env: dict[str, str]) -> dict[str, Any]:
    """The samples of a fresh process, with their medians and the ratio apply / decode."""
    done = subprocess.run(
        [python, str(Path(__file__)), str(n), str(runs)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return with_ratio(json.loads(done.stdout), n)


def with_ratio(found: dict[str, Any], n: int) -> dict[str, Any]:
    """A run's samples with `n` and the ratio of medians apply / decode (every runtime's row)."""
    decode, apply = (statistics.median(found[k]) for k in ("decode", "apply"))
    return {**found, "n": n, "ratio": apply / decode}


def goal_row(result: dict[str, Any], language: str) -> dict[str, Any]:
    """The goal row of one runtime's result: apply costs at most `GOAL` times decode."""
    return {
        "workload": "state",
        "measure": f"apply updates / decode them ({language}, v2)",
        "value": result["ratio"],
        "goal": GOAL,
        "at_most": True,
    }


def goals(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [goal_row(result, "Python")]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(json.dumps(samples(count, rounds)))
