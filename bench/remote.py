"""Workload (k): ACP's remote transport over loopback, Streamable HTTP (+SSE) and WebSocket.

Each pair is one implementation on both ends, the agent a server process on 127.0.0.1 (started
with `--listen`, it prints its URL) and the client a second process given that URL: the official
TypeScript SDK 2.4.0 (`AcpServer` through its node adapter; `experimental/http-client`,
`ws-client` with ws), our TypeScript target (`listenAgent`, `connectRemoteAgent`) and our Python
target (`http_app` under uvicorn on uvloop with our `AcpWebSocket`, as docs/transports.md serves
it, and uvicorn's own HTTP parser where httptools is not installed; `connect_remote` over httpx
and websockets), and over WebSocket only our Go target (`v1.ServeRemoteAgent`,
`v1.ConnectRemoteAgent`: bench/stdio/go, built by `build_go`). The phases are those of the
stdio pairs (bench/stdio/schedule.py): notify/s, round trips/s with 1 and with 64 in flight.

Memory per idle connection: each server, `IDLE` connections opened (`initialize`, then the
connection's SSE stream held open and read by nobody), the growth of its resident set divided by
`IDLE` (the pairs that serve Streamable HTTP).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
from two_process import GO_BENCH, KINDS, OURS_TS, STDIO, build_go

TRANSPORTS = ("http", "ws")
IDLE = 200
WEBSOCKET_ONLY = frozenset({"ours-go"})
"""Pairs without a Streamable HTTP server: measured over WebSocket only."""
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}


def servers(python: str) -> dict[str, list[str]]:
    """Implementation → the command that serves its bench agent (`--listen`)."""
    return {
        "ts-node": ["node", str(STDIO / "ts" / "agent.mjs"), "--listen"],
        "ours-ts-node": ["node", str(OURS_TS / "agent.js"), "--listen"],
        "ours-uvloop": [python, str(STDIO / "ours_agent.py"), "uvloop", "--listen"],
        "ours-go": [str(GO_BENCH / "ours_agent"), "--listen"],
    }


def clients(python: str) -> dict[str, list[str]]:
    """Implementation → its bench client's command before `N LOOP -- URL`."""
    return {
        "ts-node": ["node", str(STDIO / "ts" / "client.mjs")],
        "ours-ts-node": ["node", str(OURS_TS / "client.js")],
        "ours-uvloop": [python, str(STDIO / "ours_client.py")],
        "ours-go": [str(GO_BENCH / "ours_client")],
    }


@contextlib.contextmanager
def listening(command: list[str], env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """(URL, pid) of a server while it runs; it ends with its stdin."""
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=STDIO
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().decode().strip()
        if not line.startswith("http"):
            raise SystemExit(f"bench: {command[1]} --listen printed no URL")
        yield line, server.pid
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def measure(python: str, n: int, rounds: int, env: dict[str, str]) -> dict[str, Any]:
    """Median rates per transport, pair and workload (every run's figure kept), and memory per
    idle connection per server."""
    samples: dict[str, dict[str, dict[str, list[float]]]] = {}
    loops = {"ts-node": "node", "ours-ts-node": "node", "ours-uvloop": "uvloop", "ours-go": "go"}
    build_go()
    for round_ in range(rounds):
        for transport in TRANSPORTS:
            for label, server in servers(python).items():
                if transport == "http" and label in WEBSOCKET_ONLY:
                    continue
                with listening(server, env) as (url, _):
                    endpoint = url.replace("http", transport, 1)
                    client = clients(python)[label]
                    command = [*client, str(n), loops[label], "--", endpoint]
                    done = subprocess.run(
                        command, capture_output=True, text=True, timeout=900, env=env, cwd=STDIO
                    )
                lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
                if done.returncode != 0 or not lines:
                    raise SystemExit(f"remote {transport} {label} failed:\n{done.stderr[-2000:]}")
                rates = json.loads(lines[-1])
                for kind in KINDS:
                    by_kind = samples.setdefault(transport, {}).setdefault(label, {})
                    by_kind.setdefault(kind, []).append(rates[kind])
        print(f"remote round {round_ + 1}/{rounds} done", file=sys.stderr)
    rates_out = {
        transport: {
            label: {
                kind: {"median": statistics.median(values), "runs": values}
                for kind, values in by_kind.items()
            }
            for label, by_kind in by_label.items()
        }
        for transport, by_label in samples.items()
    }
    memory = {
        label: idle_memory(command, env)
        for label, command in servers(python).items()
        if label not in WEBSOCKET_ONLY
    }
    return {"rates": rates_out, "idle_connection_kib": memory, "idle_connections": IDLE}


def idle_memory(command: list[str], env: dict[str, str]) -> float:
    """KiB of resident memory one idle connection costs the server (see the module)."""
    with listening(command, env) as (url, pid):
        return asyncio.run(_idle_growth(url, pid))


async def _idle_growth(url: str, pid: int) -> float:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        async with _streams(http, url, 10):  # warm-up: what is loaded once
            await asyncio.sleep(0.5)
        before = _rss_kib(pid)
        async with _streams(http, url, IDLE):
            await asyncio.sleep(1.0)
            during = _rss_kib(pid)
    return (during - before) / IDLE


@contextlib.asynccontextmanager
async def _streams(http: httpx.AsyncClient, url: str, count: int) -> AsyncIterator[None]:
    """`count` connections, each initialized with its SSE stream open, while the block runs."""
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(count):
            answer = await http.post(url, json=INITIALIZE)
            connection = answer.headers["acp-connection-id"]
            headers = {"acp-connection-id": connection, "accept": "text/event-stream"}
            response = await stack.enter_async_context(http.stream("GET", url, headers=headers))
            if response.status_code != 200:
                raise SystemExit(f"bench: the event stream was refused: {response.status_code}")
        yield


def _rss_kib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return float(line.split()[1])
    raise SystemExit(f"bench: no VmRSS for process {pid}")


def summary(results: dict[str, Any]) -> list[str]:
    """The remote rows as lines of text, each pair's median and its ratio to the official TS
    SDK's in this run (`bench/run.py --only remote`)."""
    lines = [f"{'transport':<9} {'pair':<13} " + " ".join(f"{k:>16}" for k in KINDS)]
    for transport, by_label in results["rates"].items():
        official = by_label["ts-node"]
        for label, by_kind in by_label.items():
            cells = []
            for kind in KINDS:
                median = by_kind[kind]["median"]
                cells.append(f"{median:>8,.0f} ({median / official[kind]['median']:4.2f})")
            lines.append(f"{transport:<9} {label:<13} " + " ".join(f"{c:>16}" for c in cells))
    return lines


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Issues 26 and 50: ours (TypeScript, Python and, over WebSocket, Go) at or above the
    official TS SDK on every remote row (notify, one round trip in flight, 64 in flight), over
    each transport."""
    rows = []
    names = {
        "ours-ts-node": "our TS target",
        "ours-uvloop": "ours (uvloop)",
        "ours-go": "our Go target",
    }
    for transport in TRANSPORTS:
        rates = results["rates"][transport]
        for label, name in names.items():
            if label not in rates:
                continue
            for kind in ("notify", "rt1", "rt64"):
                value = rates[label][kind]["median"] / rates["ts-node"][kind]["median"]
                rows.append(
                    {
                        "workload": f"{transport} {kind}",
                        "measure": f"{name} / TS SDK (node), remote",
                        "goal": 1.0,
                        "value": float(value),
                    }
                )
    return rows
