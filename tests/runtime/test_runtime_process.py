"""A spawned peer's lifetime (runtime/process.py): the whole process group ends with the
connection, pending callers fail when the child exits, nothing is left and nothing warns.

The programs below fork a grandchild that, like an npm wrapper's native agent, ignores EOF on
stdin (and, in the worst case, SIGTERM) and keeps the stdout pipe open.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from acp_protocol.runtime import Connection, ConnectionClosed, ProcessTransport, spawn_process

from tests.runtime.support import FORKING_AGENT, running

EXIT_TIMEOUT = 2.0
"""`spawn_process`'s default wait for the child to exit after its stdin closed, before SIGTERM."""
KILL_TIMEOUT = 3.0
"""The wait after SIGTERM before SIGKILL given to the forking programs: long enough that a loaded
machine cannot make a prompt exit look like one that waited for it."""


async def spawn_forking(
    tmp_path: Path, *modes: str, kill_timeout: float = 1.0
) -> tuple[ProcessTransport, int]:
    pid_file = tmp_path / "grandchild.pid"
    transport = await spawn_process(
        sys.executable, "-c", FORKING_AGENT, str(pid_file), *modes, kill_timeout=kill_timeout
    )
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text():
            return transport, int(pid_file.read_text())
        await asyncio.sleep(0.01)
    raise AssertionError("the program did not start its grandchild")


@pytest.mark.parametrize("modes", [("plain", "wait"), ("ignore-term", "wait")])
async def test_nothing_of_the_process_group_survives_closing(
    tmp_path: Path, modes: tuple[str, str]
) -> None:
    """ "a child process must never outlive its parent's interest in it": stdin closed, then
    SIGTERM, then SIGKILL, to the whole group, even when the direct child exits cleanly."""
    transport, grandchild = await spawn_forking(tmp_path, *modes, kill_timeout=KILL_TIMEOUT)
    connection = Connection(transport)
    connection.start()
    started = time.perf_counter()
    await connection.close()
    assert not running(grandchild)
    # SIGTERM ends the plain grandchild at once, before the kill timeout; the other waits out the
    # timeout, then SIGKILL. The timeout is wide so that a loaded machine cannot blur the two.
    took = time.perf_counter() - started
    assert took < (KILL_TIMEOUT if modes[0] == "plain" else 2 * KILL_TIMEOUT + EXIT_TIMEOUT)


async def test_leaving_the_block_is_fast_when_the_child_exits_on_eof() -> None:
    transport = await spawn_process(sys.executable, "-c", "import sys; sys.stdin.readline()")
    started = time.perf_counter()
    async with Connection(transport):
        pass
    assert time.perf_counter() - started < EXIT_TIMEOUT  # it exited on EOF: no SIGTERM needed
    assert transport.process.returncode == 0


async def test_pending_callers_fail_when_the_child_exits_though_a_grandchild_holds_stdout(
    tmp_path: Path,
) -> None:
    """The process is watched, not only the pipe: EOF never comes while the grandchild lives."""
    transport, grandchild = await spawn_forking(tmp_path, "plain", "exit-now")
    async with Connection(transport) as connection:
        with pytest.raises(ConnectionClosed):  # not the wait's TimeoutError: no EOF came
            await asyncio.wait_for(connection.request("session/prompt", {}), 5)
    assert not running(grandchild)


def test_a_client_process_exits_without_warnings(tmp_path: Path) -> None:
    """No "Event loop is closed" or unclosed-transport noise at interpreter exit (-X dev shows
    every ResourceWarning)."""
    script = tmp_path / "client.py"
    script.write_text(textwrap.dedent(f"""
        import asyncio, sys
        from acp_protocol.runtime import Connection, spawn_process

        async def main() -> None:
            transport = await spawn_process(
                sys.executable, "-c", {FORKING_AGENT!r}, {str(tmp_path / "pid")!r}, "plain", "wait"
            )
            async with Connection(transport):
                await asyncio.sleep(0.2)

        asyncio.run(main())
    """))
    result = subprocess.run(
        [sys.executable, "-X", "dev", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PYTHONWARNINGS": "always"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


async def test_a_program_that_cannot_start_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await spawn_process(str(tmp_path / "no-such-agent"))
