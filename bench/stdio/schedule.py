"""The two-process workloads (bench/two_process.py), shared by every Python client (stdlib only).

The client spawns the agent and sends prompts whose text selects the work: `flood N` (the agent
streams N `agent_message_chunk` updates), `reads N K` (the agent makes N `fs/read_text_file`
calls to the client, K in flight). Each client prints one JSON line:
`{"client": NAME, "notify": …, "rt1": …, "rt64": …}` (per second).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Awaitable, Callable

CHUNK = "The quick brown fox jumps over the lazy dog. " * 4
FILE_TEXT = "line one\nline two\n"
READ_PATH = "/bench/file.txt"


def phases(n: int) -> list[tuple[str, str, int]]:
    """(name, prompt text, messages) in order; warm-ups first, not reported."""
    warm = max(n // 10, 50)
    return [
        ("warm", f"flood {warm}", 0),
        ("warm2", f"reads {warm} 8", 0),
        ("notify", f"flood {n}", n),
        ("rt1", f"reads {n} 1", n),
        ("rt64", f"reads {n} 64", n),
    ]


def arguments() -> tuple[int, str, list[str]]:
    """`client.py N LOOP -- AGENT COMMAND…` → (N, loop, agent command)."""
    dash = sys.argv.index("--")
    return int(sys.argv[1]), sys.argv[2], sys.argv[dash + 1 :]


async def measure(
    name: str, n: int, prompt: Callable[[str], Awaitable[object]], updates: Callable[[], int]
) -> None:
    """Run every phase through `prompt`, check the flood arrived whole, print the JSON line."""
    rates: dict[str, object] = {"client": name}
    for phase, text, count in phases(n):
        before = updates()
        started = time.perf_counter()
        await prompt(text)
        seconds = time.perf_counter() - started
        if phase == "notify" and updates() - before != n:
            raise SystemExit(f"{name}: saw {updates() - before} of {n} updates")
        if count:
            rates[phase] = round(count / seconds)
    print(json.dumps(rates), flush=True)
