"""The load of the scale rows (bench/scale.py): K editors in one process, each its own connection
through our Python remote client (`connect_remote`, WebSocket, uvloop), each running turns of
streamed updates, one after the other, as fast as they are answered.

    python bench/scale_load.py URL K UPDATES SECONDS

Phases, each begun by a line on stdin (bench/scale.py samples the servers between them):
1. warm-up: eight editors run two turns each and leave (what every server process loads once),
   then `warm`;
2. `go`: K editors connect (`initialize`, `session/new`), then `idle HELD ERRORS`;
3. `go`: every editor runs turns (`flood UPDATES`) for SECONDS, then one JSON line: turns,
   the time from each prompt sent to its first update (ms), errors, and this process's CPU.
An error is a connection or a call that failed, or a turn that did not stream UPDATES updates.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import sys
import time
from typing import Any

from acp_protocol.runtime import run
from acp_protocol.v1 import helpers, models
from acp_protocol.v1.client import Client, ClientConnection, ClientContext, connect_remote

CONNECTING_AT_ONCE = 32
WARM = 8  # editors of the warm-up: nginx spreads them over every process (4 at most)
TURN_TIMEOUT = 60.0


class Editor(Client):
    """One editor: counts the updates of its turn, and when the first arrived."""

    def __init__(self) -> None:
        self.updates = 0
        self.first: float | None = None

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        if self.first is None:
            self.first = time.perf_counter()
        self.updates += 1


class Load:
    def __init__(self, url: str, updates: int) -> None:
        self.url = url
        self.updates = updates
        self.errors: list[str] = []
        self.first_ms: list[float] = []
        self.turns = 0

    def error(self, what: str, error: BaseException) -> None:
        self.errors.append(f"{what}: {type(error).__name__}: {error}"[:200])

    async def open(self, stack: contextlib.AsyncExitStack, gate: asyncio.Semaphore) -> Any:
        """An editor's connection and session, or None (an error counted)."""
        editor = Editor()
        try:
            async with gate:
                connection = await stack.enter_async_context(connect_remote(editor, self.url))
                await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
                new = models.NewSessionRequest(cwd="/work", mcp_servers=[])
                session = (await connection.agent.session_new(new)).session_id
            return editor, connection, session
        except Exception as error:  # every failure is a counted error
            self.error("connect", error)
            return None

    async def turn(self, editor: Editor, connection: ClientConnection, session: str) -> bool:
        request = models.PromptRequest(
            session_id=session, prompt=[helpers.text_block(f"flood {self.updates}")]
        )
        editor.updates, editor.first = 0, None
        sent = time.perf_counter()
        try:
            await asyncio.wait_for(connection.agent.session_prompt(request), TURN_TIMEOUT)
        except Exception as error:  # every failure is a counted error
            self.error("turn", error)
            return False
        if editor.updates != self.updates or editor.first is None:
            self.errors.append(f"turn: {editor.updates} updates of {self.updates}")
            return False
        self.first_ms.append((editor.first - sent) * 1e3)
        return True

    async def editor_turns(self, opened: Any, until: float) -> None:
        while time.perf_counter() < until:
            if not await self.turn(*opened):
                return  # a failed editor stops: its connection is not held
            self.turns += 1


def percentiles(samples: list[float]) -> dict[str, float | None]:
    """p50 and p99 of `samples` (None when there are none)."""
    if len(samples) < 2:
        only = samples[0] if samples else None
        return {"p50": only, "p99": only}
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": statistics.median(samples), "p99": cuts[98]}


async def line() -> str:
    read: str = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return read.strip()


def say(text: str) -> None:
    print(text, flush=True)


async def main(url: str, k: int, updates: int, seconds: float) -> None:
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    warm = Load(url, updates)
    async with contextlib.AsyncExitStack() as stack:
        for opened in await asyncio.gather(*(warm.open(stack, gate) for _ in range(WARM))):
            if opened is not None:
                for _ in range(2):
                    await warm.turn(*opened)
    say("warm")
    await line()
    load = Load(url, updates)
    async with contextlib.AsyncExitStack() as stack:
        editors = await asyncio.gather(*(load.open(stack, gate) for _ in range(k)))
        held = [opened for opened in editors if opened is not None]
        say(f"idle {len(held)} {len(load.errors)}")
        await line()
        cpu, started = time.process_time(), time.perf_counter()
        until = started + seconds
        await asyncio.gather(*(load.editor_turns(opened, until) for opened in held))
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        result = {
            "held": len(held) - sum(1 for e in load.errors if e.startswith("turn")),
            "turns": load.turns,
            "seconds": wall,
            "first_ms": percentiles(load.first_ms),
            "errors": len(load.errors),
            "error_lines": sorted(set(load.errors))[:5],
            "warm_errors": warm.errors[:5],
            "load_cpu_seconds": cpu,
        }
        say(json.dumps(result))


if __name__ == "__main__":
    url, k, updates, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    run(main(url, k, updates, float(seconds)), event_loop="uvloop")
