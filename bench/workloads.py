"""The workloads every implementation runs, and the command line each `impl_*.py` answers.

Standard library only: `impl_official.py` imports it from the official SDK's own environment
(`.venv-official`), where our package is not installed. One process per measurement: the driver
(`bench/run.py`) runs `python bench/impl_<name>.py <workload> <size>` and reads one JSON object
from its stdout, so every implementation starts from a fresh interpreter and heap.

Workloads (agent and client in one process, two `os.pipe()` pairs, newline-delimited JSON):
- `notify N`: agent→client `session/update` `agent_message_chunk` notifications; rate until the
  client's handler has seen all N;
- `rt1 N` / `rt64 N`: agent→client `fs/read_text_file` round trips, 1 or 64 in flight;
- `latency COUNT`: p50 of one plain round trip; and, where cancellation exists, from the caller
  cancelling to the caller holding the -32800 answer (p50, p99);
- `memory COUNT`: bytes per pending outgoing request, COUNT pending on a peer that never answers
  (tracemalloc; the caller's task is counted, as every implementation needs one per call).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

SESSION_ID = "sess_1"
CHUNK_TEXT = "hello world, streaming a token"
READ_PATH = "/home/user/project/notes.txt"
SLOW_PATH = "/home/user/project/slow.txt"
"""A read the client's handler never finishes: the cancellation workload's target."""
FILE_TEXT = "file body"
BATCH = 64


class Implementation(Protocol):
    """What an `impl_*.py` module provides to `serve`."""

    name: str

    async def throughput(self, kind: str, n: int) -> float: ...

    async def latency(self, count: int) -> dict[str, float | None]: ...

    async def memory(self, count: int) -> float: ...


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """A write-pipe protocol whose `StreamWriter.close()` can be awaited (stdlib has none).

    The same as the runtime's `_WritePipeProtocol`, kept apart on purpose: this module runs in
    the official SDK's environment, where our package is not installed."""

    def __init__(self) -> None:
        super().__init__()
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self._closed.done():
            self._closed.set_result(None)

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        return self._closed


async def stream_pair(
    read_fd: int, write_fd: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """asyncio streams over one pipe end to read and one to write (what stdio gives a peer)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        _WriteProtocol, os.fdopen(write_fd, "wb", buffering=0)
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


def pipe_ends() -> tuple[tuple[int, int], tuple[int, int]]:
    """(agent read, agent write), (client read, client write): two pipes, one per direction."""
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    return (agent_read, agent_write), (client_read, client_write)


async def drive(
    kind: str,
    n: int,
    notify: Callable[[], Awaitable[Any]],
    request: Callable[[], Awaitable[Any]],
    all_seen: asyncio.Event,
) -> float:
    """Run workload `kind` from the agent side: messages per second."""
    started = time.perf_counter()
    if kind == "notify":
        for _ in range(n):
            await notify()
        await all_seen.wait()
    elif kind == "rt1":
        for _ in range(n):
            await request()
    elif kind == "rt64":
        for _ in range(n // BATCH):
            await asyncio.gather(*(request() for _ in range(BATCH)))
        n = n // BATCH * BATCH
    else:
        raise ValueError(f"unknown throughput workload {kind!r}")
    return n / (time.perf_counter() - started)


async def round_trip_p50(count: int, request: Callable[[], Awaitable[Any]]) -> float:
    """Milliseconds of one plain round trip, median of `count` sequential ones."""
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        await request()
        samples.append(time.perf_counter() - started)
    return percentile(samples, 0.5) * 1e3


async def pending_memory(
    count: int,
    make_caller: Callable[[int, int], Awaitable[Any]],
    start_request: Callable[[Any], Coroutine[Any, Any, Any]],
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
    tasks = [asyncio.create_task(start_request(caller)) for _ in range(count)]
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
    return (after - before) / count


async def _discard(read_fd: int) -> None:
    reader, _ = await _read_only(read_fd)
    while await reader.read(1 << 16):
        pass


async def _read_only(read_fd: int) -> tuple[asyncio.StreamReader, asyncio.BaseTransport]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    return reader, transport


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def serve(implementation: Implementation) -> None:
    """The command line of an `impl_*.py`: run one measurement, print one JSON object."""
    parser = argparse.ArgumentParser(description=f"one {implementation.name} measurement")
    parser.add_argument("workload", choices=["notify", "rt1", "rt64", "latency", "memory"])
    parser.add_argument("size", type=int, help="messages, cancels or pending requests")
    args = parser.parse_args()
    result: dict[str, Any]
    if args.workload == "latency":
        result = dict(asyncio.run(implementation.latency(args.size)))
    elif args.workload == "memory":
        result = {"bytes_per_pending": asyncio.run(implementation.memory(args.size))}
    else:
        # A short warm-up run first, in the same process: the first run of a fresh interpreter
        # is up to 2x slower for every implementation (the floor included), whatever its size.
        asyncio.run(implementation.throughput(args.workload, max(args.size // 10, BATCH)))
        result = {"rate": asyncio.run(implementation.throughput(args.workload, args.size))}
    print(json.dumps(result))
