"""One run of the scale rows (bench/scale.py): a cluster of agent server processes behind nginx,
the load process in front of it, and what /proc says of them meanwhile.

`one_run` starts the servers (ours: bench/scale_agent.py; the official TS SDK's bench agent,
bench/stdio/ts/agent.mjs), nginx with deploy/nginx/acp.conf (tests/services/nginx.py) and
bench/scale_load.py, samples the servers' resident memory after the warm-up, with the K
connections idle and while they run turns, and the CPU time of every part while the turns run;
then stops them all.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.services import nginx, postgres  # noqa: E402 - the repository's services

ROUTES = "abcd"
CLOCK = os.sysconf("SC_CLK_TCK")


def label(config: tuple[str, str, int]) -> str:
    implementation, store, processes = config
    return f"{implementation} {store} x{processes}"


# -- /proc ------------------------------------------------------------------------------------


def _stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()  # fields from the 3rd (state) on


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = _stat(pid)
            total += (int(fields[11]) + int(fields[12])) / CLOCK  # utime, stime
    return total


def runnable_seconds(pids: list[int]) -> float:
    """Time the processes' threads spent ready to run but waiting for a CPU (the scheduler's
    run-queue wait, /proc/PID/task/TID/schedstat): high when the machine's CPUs are the limit."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                with contextlib.suppress(OSError, IndexError):
                    total += int((task / "schedstat").read_text().split()[1]) / 1e9
    return total


def rss_kib(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += float(line.split()[1])
    return total


def with_children(pid: int) -> list[int]:
    """`pid` and its children (nginx's workers, PostgreSQL's backends)."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int(_stat(int(entry.name))[1]) == pid:
                    found.append(int(entry.name))
    return found


# -- one cluster --------------------------------------------------------------------------------


@dataclass
class Cluster:
    servers: list[subprocess.Popen[bytes]]
    proxy: nginx.Proxy


@contextlib.contextmanager
def cluster(
    config: tuple[str, str, int], python: str, env: dict[str, str], store_arg: str
) -> Iterator[Cluster]:
    implementation, _, processes = config
    servers: list[subprocess.Popen[bytes]] = []
    proxy = None
    try:
        ports: dict[str, int] = {}
        for route in ROUTES[:processes]:
            if implementation == "ts-sdk":
                command = ["node", str(BENCH / "stdio" / "ts" / "agent.mjs"), "--listen"]
            else:
                command = [python, str(BENCH / "scale_agent.py"), store_arg, route]
            servers.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
            )
        for route, server in zip(ROUTES, servers, strict=False):
            assert server.stdout is not None
            printed = server.stdout.readline().decode().strip()
            port = printed.rsplit(":", 1)[-1].split("/")[0]
            if not port.isdigit():
                raise SystemExit(f"bench scale: {label(config)} server {route} did not start")
            ports[route] = int(port)
        proxy = nginx.start(ports)
        yield Cluster(servers, proxy)
    finally:
        for server in servers:
            assert server.stdin is not None
            server.stdin.close()
        for server in servers:
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        if proxy is not None:
            proxy.stop()


class LoadProcess:
    """bench/scale_load.py, its stdout read by a thread: each line `expect`ed in turn."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())
        self.lines.put("")

    def expect(self, start: str, timeout: float) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise SystemExit(f"bench scale: the load process said no {start!r} in time") from None
        if not line.startswith(start):
            raise SystemExit(f"bench scale: the load process said {line[:200]!r}, not {start!r}")
        return line

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        assert self.process.stdin is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def one_run(
    config: tuple[str, str, int],
    k: int,
    settings: dict[str, Any],
    python: str,
    env: dict[str, str],
    store_arg: str,
    postmaster: int | None,
) -> dict[str, Any]:
    seconds = float(settings["seconds"])
    with cluster(config, python, env, store_arg) as running:
        server_pids = [server.pid for server in running.servers]
        command = [python, str(BENCH / "scale_load.py"), running.proxy.url("ws"), str(k)]
        load = LoadProcess([*command, str(settings["updates"]), str(seconds)], env)
        try:
            load.expect("warm", 120)
            baseline = rss_kib(server_pids)
            load.go()
            _, held_idle, _ = load.expect("idle", 300).split()
            time.sleep(0.5)
            idle = rss_kib(server_pids)
            parts = {
                "servers": server_pids,
                "nginx": with_children(running.proxy.process.pid),
                "postgres": with_children(postmaster) if postmaster else [],
                "load": [load.process.pid],
            }
            before = {n: cpu_seconds(p) for n, p in parts.items()}
            queued = {n: runnable_seconds(p) for n, p in parts.items()}
            started = time.monotonic()
            load.go()
            peak = idle
            while load.lines.empty() and time.monotonic() < started + seconds + 120:
                peak = max(peak, rss_kib(server_pids))
                time.sleep(0.2)
            wall = time.monotonic() - started
            cores = {n: (cpu_seconds(p) - before[n]) / wall for n, p in parts.items()}
            waiting = {n: (runnable_seconds(p) - queued[n]) / wall for n, p in parts.items()}
            result = load.expect("{", 1)
        finally:
            load.stop()
    measured = json.loads(result)
    held = int(held_idle)
    per = max(held, 1)
    return {
        "held_idle": held,
        "held": measured["held"],
        "turns": measured["turns"],
        "turns_per_s": measured["turns"] / measured["seconds"],
        "first_ms": measured["first_ms"],
        "idle_kib": (idle - baseline) / per,
        "active_kib": (peak - baseline) / per,
        "errors": measured["errors"] + len(measured["warm_errors"]),
        "error_lines": measured["error_lines"] + measured["warm_errors"],
        "cores": cores,
        "waiting": waiting,
        "servers_rss_mib": peak / 1024,
    }


def store_argument(store: str, folder: Path, server: postgres.Server | None) -> str:
    if store == "sqlite":
        return f"sqlite:{folder / f'sessions-{uuid.uuid4().hex}.db'}"
    if store == "postgres":
        assert server is not None
        return f"postgres:{server.dsn}#scale_{uuid.uuid4().hex}"
    return "memory"
