"""Runtime benchmark: our JSON-RPC connection against the NDJSON floor (`make bench`).

Agent and client live in one process and talk over two `os.pipe()` pairs with newline-delimited
JSON. Workloads (ratios are taken in the same run; absolute numbers vary with the machine):
- notify: agent→client `session/update` `agent_message_chunk` notifications per second;
- rt1 / rt64: agent→client `fs/read_text_file` round trips per second, 1 or 64 in flight;
- cancel: from `CancelSignal.cancel()` to the caller holding the peer's -32800 answer (p50, p99),
  against one plain round trip measured the same way;
- memory: bytes per pending outgoing request, 10,000 pending (tracemalloc).
This measures the method-agnostic runtime (no typed models yet). Writes bench/results-runtime.json.
Run: python bench/runtime.py [--n 20000] [--runs 5] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from acp_protocol.runtime import (
    CancelSignal,
    Connection,
    MethodHandlers,
    RequestCancelled,
    RequestContext,
    open_fds,
)
from acp_protocol.runtime.json_codec import JSON_IMPLEMENTATION
from floor import FloorPeer

RESULTS = Path(__file__).resolve().parent / "results-runtime.json"
CHUNK = {
    "sessionId": "sess_1",
    "update": {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "hello world, streaming a token"},
    },
}
READ = {"sessionId": "sess_1", "path": "/home/user/project/notes.txt"}
FILE = {"content": "file body"}


async def _pipe_ends() -> tuple[int, int, int, int]:
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    return agent_read, agent_write, client_read, client_write


# -- ours ----------------------------------------------------------------------------------


async def ours(kind: str, n: int) -> float:
    """Messages per second through two of our connections."""
    agent_read, agent_write, client_read, client_write = await _pipe_ends()
    seen = 0
    done = asyncio.Event()

    async def on_update(params: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == n:
            done.set()

    async def on_read(params: Any, ctx: RequestContext) -> Any:
        return FILE

    client_handlers = MethodHandlers({"fs/read_text_file": on_read}, {"session/update": on_update})
    agent = Connection(await open_fds(agent_read, agent_write))
    client = Connection(await open_fds(client_read, client_write), client_handlers)
    async with agent, client:
        return await _drive(kind, n, agent, done)


async def ours_latencies(count: int) -> tuple[list[float], list[float]]:
    """Seconds per plain round trip, and from cancel() to holding the -32800 answer."""
    agent_read, agent_write, client_read, client_write = await _pipe_ends()
    started_handlers: asyncio.Queue[None] = asyncio.Queue()

    async def on_read(params: Any, ctx: RequestContext) -> Any:
        if params.get("slow"):
            started_handlers.put_nowait(None)
            await asyncio.Event().wait()
        return FILE

    agent = Connection(await open_fds(agent_read, agent_write))
    client = Connection(
        await open_fds(client_read, client_write), MethodHandlers({"fs/read_text_file": on_read})
    )
    round_trips, cancels = [], []
    async with agent, client:
        for _ in range(count):
            started = time.perf_counter()
            await agent.request("fs/read_text_file", READ)
            round_trips.append(time.perf_counter() - started)
        for _ in range(count):
            signal = CancelSignal()
            call = asyncio.create_task(
                agent.request("fs/read_text_file", {**READ, "slow": True}, cancel=signal)
            )
            await started_handlers.get()
            started = time.perf_counter()
            signal.cancel()
            try:
                await call
                raise AssertionError("the slow request was not cancelled")
            except RequestCancelled:
                cancels.append(time.perf_counter() - started)
    return round_trips, cancels


async def ours_pending_memory(count: int) -> float:
    """Bytes per pending outgoing request (request task, future, pending entry)."""

    async def pending(connection: Any) -> list[asyncio.Task[Any]]:
        return [
            asyncio.create_task(connection.request("fs/read_text_file", READ)) for _ in range(count)
        ]

    return await _pending_memory(_our_caller, pending)


async def _our_caller(read_fd: int, write_fd: int) -> Any:
    connection = Connection(await open_fds(read_fd, write_fd))
    connection.start()
    return connection


# -- floor ---------------------------------------------------------------------------------


async def _floor_pipe(read_fd: int, write_fd: int) -> tuple[Any, Any]:
    transport = await open_fds(read_fd, write_fd)
    return transport._reader, transport._writer


async def floor(kind: str, n: int) -> float:
    agent_read, agent_write, client_read, client_write = await _pipe_ends()
    agent = FloorPeer(*await _floor_pipe(agent_read, agent_write))
    client = FloorPeer(*await _floor_pipe(client_read, client_write))
    seen = 0
    done = asyncio.Event()

    def on_update(params: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == n:
            done.set()

    client.handlers = {"session/update": on_update, "fs/read_text_file": lambda p: FILE}
    readers = [asyncio.create_task(agent.run()), asyncio.create_task(client.run())]
    rate = await _drive(kind, n, agent, done)
    for task in readers:
        task.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    agent.writer.close()
    client.writer.close()
    return rate


async def floor_pending_memory(count: int) -> float:
    async def caller(read_fd: int, write_fd: int) -> Any:
        peer = FloorPeer(*await _floor_pipe(read_fd, write_fd))
        peer.reader_task = asyncio.create_task(peer.run())  # type: ignore[attr-defined]
        return peer

    async def pending(peer: Any) -> list[asyncio.Task[Any]]:
        return [asyncio.create_task(peer.request("fs/read_text_file", READ)) for _ in range(count)]

    return await _pending_memory(caller, pending)


# -- shared --------------------------------------------------------------------------------


async def _drive(kind: str, n: int, agent: Any, done: asyncio.Event) -> float:
    """Run workload `kind` from the agent side; messages per second."""
    started = time.perf_counter()
    if kind == "notify":
        for _ in range(n):
            await agent.notify("session/update", CHUNK)
        await done.wait()
    elif kind == "rt1":
        for _ in range(n):
            await agent.request("fs/read_text_file", READ)
    else:
        for _ in range(n // 64):
            await asyncio.gather(*(agent.request("fs/read_text_file", READ) for _ in range(64)))
    return n / (time.perf_counter() - started)


async def _pending_memory(
    make_caller: Callable[[int, int], Awaitable[Any]],
    make_pending: Callable[[Any], Awaitable[list[asyncio.Task[Any]]]],
) -> float:
    """Memory growth per request while `count` requests wait on a peer that never answers."""
    caller_read, peer_write = os.pipe()
    peer_read, caller_write = os.pipe()
    caller = await make_caller(caller_read, caller_write)
    sink = asyncio.create_task(_discard(peer_read))
    await asyncio.sleep(0.01)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tasks = await make_pending(caller)
    for _ in range(5):
        await asyncio.sleep(0.01)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    sink.cancel()
    await asyncio.gather(sink, return_exceptions=True)
    os.close(peer_write)
    return (after - before) / len(tasks)


async def _discard(read_fd: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    while await reader.read(1 << 16):
        pass


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cancels", type=int, default=2_000)
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--smoke", action="store_true", help="a tiny run; writes nothing")
    args = parser.parse_args()
    if args.smoke:
        args.n, args.runs, args.cancels, args.pending = 640, 1, 20, 100

    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "json": JSON_IMPLEMENTATION,
        },
        "n": args.n,
        "runs": args.runs,
        "throughput": {},
    }
    print(f"{'workload':<10} {'ours/s':>10} {'floor/s':>10} {'ratio':>6}")
    for kind in ("notify", "rt1", "rt64"):
        mine = [asyncio.run(ours(kind, args.n)) for _ in range(args.runs)]
        base = [asyncio.run(floor(kind, args.n)) for _ in range(args.runs)]
        ratio = statistics.median(mine) / statistics.median(base)
        results["throughput"][kind] = {
            "ours": {"median": statistics.median(mine), "min": min(mine), "max": max(mine)},
            "floor": {"median": statistics.median(base), "min": min(base), "max": max(base)},
            "ratio": ratio,
        }
        print(
            f"{kind:<10} {statistics.median(mine):>10,.0f} {statistics.median(base):>10,.0f} "
            f"{ratio:>6.2f}"
        )

    round_trips, cancels = asyncio.run(ours_latencies(args.cancels))
    latency = {
        "round_trip_p50_ms": percentile(round_trips, 0.5) * 1e3,
        "cancel_p50_ms": percentile(cancels, 0.5) * 1e3,
        "cancel_p99_ms": percentile(cancels, 0.99) * 1e3,
    }
    latency["cancel_p50_over_round_trip"] = latency["cancel_p50_ms"] / latency["round_trip_p50_ms"]
    results["cancel"] = latency
    print(
        f"cancel     p50 {latency['cancel_p50_ms']:.3f} ms, p99 {latency['cancel_p99_ms']:.3f} ms; "
        f"round trip p50 {latency['round_trip_p50_ms']:.3f} ms "
        f"(ratio {latency['cancel_p50_over_round_trip']:.2f})"
    )

    mine_bytes = asyncio.run(ours_pending_memory(args.pending))
    floor_bytes = asyncio.run(floor_pending_memory(args.pending))
    results["memory_per_pending_request_bytes"] = {
        "ours": mine_bytes,
        "floor": floor_bytes,
        "ratio": mine_bytes / floor_bytes,
    }
    print(f"memory     {mine_bytes:,.0f} B per pending request (floor {floor_bytes:,.0f} B)")
    if not args.smoke:
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
