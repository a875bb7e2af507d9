"""Workloads (h) and (i): the runtime's edges under load (issue 14).

- (h) long lines: the time to split one 10 MB and one 40 MB frame arriving in 64 KiB chunks
  (`FrameReader`, in process); linear splitting keeps 40 MB within 5x the 10 MB time.
- (i) flood: a child process serving requests over its stdio while this process sends it 200,000
  prompts and never reads an answer; the child's peak resident memory (VmHWM) tells whether flow
  control bounds it. The sender stops at a deadline; the child is killed after it.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import textwrap
import threading
from typing import Any

FLOOD_AGENT = textwrap.dedent("""
    import asyncio
    from acp_protocol.runtime import Connection, MethodHandlers, open_stdio

    async def prompt(params, ctx):
        return {"stopReason": "end_turn", "echo": params}

    async def main():
        connection = Connection(await open_stdio(), MethodHandlers({"session/prompt": prompt}))
        async with connection:
            await connection.wait_closed()

    asyncio.run(main())
""")


SPLIT_ONE = textwrap.dedent("""
    import asyncio, sys, time
    from acp_protocol.runtime.transports.transport import FrameReader

    size = int(sys.argv[1])
    frame = b'{"blob":"' + b"z" * size + b'"}\\n'
    pieces = iter([frame[i : i + 65536] for i in range(0, len(frame), 65536)])

    async def read():
        return next(pieces, b"")

    async def split():
        reader = FrameReader(read, limit=size * 2)
        started = time.perf_counter()
        while await reader.next_lines() is not None:
            pass
        return time.perf_counter() - started

    print(asyncio.run(split()))
""")


def long_lines(sizes_mb: tuple[int, ...] = (10, 40), runs: int = 3) -> dict[str, float]:
    """Median seconds to split one frame of each size, each in a fresh interpreter (a warm one
    would reuse the memory of the previous frame and time the allocator, not the splitter)."""

    def once(mb: int) -> float:
        out = subprocess.run(
            [sys.executable, "-c", SPLIT_ONE, str(mb * 1024 * 1024)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return float(out)

    return {f"{mb}mb": statistics.median(once(mb) for _ in range(runs)) for mb in sizes_mb}


def flood(count: int = 200_000, seconds: float = 20.0) -> dict[str, Any]:
    """Send `count` prompts to a child that answers into a pipe nobody reads; its peak RSS."""
    child = subprocess.Popen(
        [sys.executable, "-c", FLOOD_AGENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdin is not None
    sent = 0
    prompt = (
        b',"method":"session/prompt",'
        b'"params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}\n'
    )

    def send() -> None:
        nonlocal sent
        try:
            for number in range(count):
                child.stdin.write(b'{"jsonrpc":"2.0","id":%d' % number + prompt)  # type: ignore[union-attr]
                sent += 1
            child.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError, OSError):
            return

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    sender.join(seconds)
    peak_kb = _peak_rss_kb(child.pid)
    child.kill()
    child.wait()
    sender.join(5)
    return {"sent": sent, "count": count, "peak_rss_mb": peak_kb / 1024}


def _peak_rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0
