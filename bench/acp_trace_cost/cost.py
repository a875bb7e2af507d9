"""ACP_TRACE's CPU cost per frame on the Python runtime: notifications written by a connection
to a transport that discards them, with and without ACP_TRACE, in bursts of 64 (then one
event-loop turn) and alone (one turn each); the process's CPU per frame, the difference being
the recording's. Run: `.venv/bin/python bench/acp_trace_cost/cost.py`."""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time

from acp_protocol.runtime import Connection, memory_pair

FRAMES = 64 * 200
PARAMS = {
    "sessionId": "s1",
    "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}},
}


async def run(folder: str | None, burst: int) -> float:
    if folder:
        os.environ["ACP_TRACE"] = os.path.join(folder, "t-{n}.jsonl")
    own, _ = memory_pair()
    own.write = lambda data, *, batch=0: None  # type: ignore[method-assign]
    connection = Connection(own)
    connection.start()
    os.environ.pop("ACP_TRACE", None)
    before = time.process_time()
    for _ in range(0, FRAMES, burst):
        for _ in range(burst):
            await connection.notify("session/update", PARAMS)
        await asyncio.sleep(0)
    await connection.close()
    return (time.process_time() - before) / FRAMES * 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(folder, 64))
        with open(os.path.join(folder, "t-1.jsonl"), "rb") as first:
            assert sum(1 for _ in first) == FRAMES + 1, "every frame recorded"
        for burst in (64, 1):
            off = [asyncio.run(run(None, burst)) for _ in range(5)]
            on = [asyncio.run(run(folder, burst)) for _ in range(5)]
            a, b = statistics.median(off), statistics.median(on)
            print(
                f"python burst={burst}: {a:.2f} µs CPU/frame without, {b:.2f} with: +{b - a:.2f} µs"
            )


main()
