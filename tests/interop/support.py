"""Running the real peers of the interop tests: the official TypeScript SDK (node) and the official
Python SDK, each as a stdio subprocess. `make test` installs both (`npm ci`, the dev extra)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

INTEROP = Path(__file__).resolve().parent
NODE_PEERS = INTEROP / "node"
OUR_TS_PROGRAMS = INTEROP.parents[1] / ".build" / "typescript" / "dist-test" / "test"
"""Our TypeScript interop programs (tests/typescript/interop_*.ts), as `make ts-build` builds them
against the generated TypeScript package."""
OUR_AGENT = (sys.executable, str(INTEROP / "our_agent.py"))
PEER_TIMEOUT = 30.0


def node() -> str:
    """The node binary, with the pinned SDK installed; fails (never skips) if either is missing."""
    program = shutil.which("node")
    if program is None:
        pytest.fail("node is not on PATH; the interop tests need node 20+")
    if not (NODE_PEERS / "node_modules" / "@agentclientprotocol" / "sdk").is_dir():
        pytest.fail(
            f"the TypeScript SDK is not installed: run `make test` (npm ci in {NODE_PEERS})"
        )
    return program


def our_ts_program(name: str) -> str:
    """One of our TypeScript interop programs, built; fails (never skips) when it is not."""
    program = OUR_TS_PROGRAMS / f"{name}.js"
    if not program.is_file():
        pytest.fail(f"{program} is not built: run `make ts-build` (part of `make test`)")
    return str(program)


async def _output(label: str, command: tuple[str, ...], env: dict[str, str] | None = None) -> str:
    """The stdout of `command`; the test fails (naming `label`) on a timeout or a non-zero exit."""
    process = await asyncio.create_subprocess_exec(
        *command, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), PEER_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        pytest.fail(f"{label} did not finish within {PEER_TIMEOUT} s")
    if process.returncode != 0:
        pytest.fail(f"{label} exited {process.returncode}:\n{stderr.decode(errors='replace')}")
    return stdout.decode()


async def run_json_peer(*command: str) -> dict[str, Any]:
    """Run a peer program that prints one JSON report on stdout; fail on a non-zero exit."""
    stdout = await _output(str(command[:2]), command)
    report: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return report


async def run_event_peer(
    label: str, *command: str, env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The JSON lines a peer program prints, the last of which must be `{"event": "done"}`."""
    stdout = await _output(label, command, env)
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert events[-1] == {"event": "done"}
    return events


def read_events(path: Path) -> list[dict[str, Any]]:
    """The JSON-lines event log a peer wrote ($ACP_INTEROP_EVENTS)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


async def run_their_v2_client(scenario: str, *agent: str) -> list[dict[str, Any]]:
    """The official TS SDK's v2 client's JSON lines (tests/interop/node/ts_v2_client.mjs) for
    `scenario` against the agent program `agent`."""
    environment = {**os.environ, "ACP_V2_SCENARIO": scenario}
    command = (node(), str(NODE_PEERS / "ts_v2_client.mjs"), *agent)
    return await run_event_peer(f"ts_v2_client.mjs {scenario}", *command, env=environment)


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]


def states(updates: list[dict[str, Any]]) -> list[str]:
    """Each update as `sessionUpdate[:state[:stopReason]]`."""
    return [
        ":".join(str(u[k]) for k in ("sessionUpdate", "state", "stopReason") if k in u)
        for u in updates
    ]
