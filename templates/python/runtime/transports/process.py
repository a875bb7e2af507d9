"""A child process as a transport (transport layer): its stdin/stdout, and its whole lifetime.

A client starts its agent with `spawn_process` (through `spawn_agent`). The child never outlives
the parent's interest in it:

- It runs in a session and process group of its own (so a Ctrl-C in the terminal reaches the
  parent only, which decides what an interrupt means). Closing the transport ends the whole group:
  stdin is closed, the child gets `exit_timeout` seconds to exit on EOF, then the group gets
  SIGTERM, then SIGKILL. Grandchildren are signalled too, even when the child exits cleanly (an
  npm wrapper's native child that ignores EOF would otherwise live on).
- The process is watched, not only its stdout: when the child exits, stdout is read for a short
  grace and then treated as ended, even if a grandchild still holds the pipe, so pending callers
  fail at once instead of waiting for a pipe that never closes.
- No asyncio subprocess transport is involved (a plain `subprocess.Popen` and the runtime's own
  pipe transports), so nothing is left to warn "Event loop is closed" at exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable
from typing import IO, Any

from .pipes import PipeReader, PipeTransport, connect_pipes

EXIT_GRACE = 0.2
"""Seconds stdout is still read after the child exits (its last output), before it is ended."""
_GROUP_POLL = 0.02


class ProcessTransport(PipeTransport):
    """The stdin/stdout of a child process and the end of its process group (see the module)."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        pipes: tuple[PipeReader, asyncio.StreamWriter, asyncio.ReadTransport],
        exit_timeout: float,
        kill_timeout: float,
        *,
        push: bool | None = None,
    ) -> None:
        super().__init__(pipes, self._end_process_group, push=push)
        self.input_closed = False
        """Set by `close_input`: our end of stdin was closed on purpose, stdout is still read."""
        self._stdout_transport = pipes[2]
        self.process = process
        self._exit_timeout = exit_timeout
        self._kill_timeout = kill_timeout
        self._exited = _watch_exit(process)
        self._exited.add_done_callback(self._after_exit)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def close_input(self) -> None:
        """Half-close: close the child's stdin (it reads EOF) and go on reading its stdout until
        it exits; then, as `close`, its group is ended if it has not exited `exit_timeout`
        seconds later. What the child still writes after EOF (answers to requests it read
        before) is read as usual."""
        self.input_closed = True
        await self.close()

    def _after_exit(self, _: asyncio.Future[int | None]) -> None:
        # The child's last output is already in the pipe; read it, then end stdout even if a
        # grandchild keeps the pipe open.
        asyncio.get_running_loop().call_later(EXIT_GRACE, self._stdout_transport.close)

    async def _end_process_group(self) -> None:
        """Stdin is closed: wait for the child, then TERM and KILL whatever of its group is left."""
        if not await self._wait_exit(self._exit_timeout):
            self._signal_group(signal.SIGTERM)
            if not await self._wait_exit(self._kill_timeout):
                self._signal_group(signal.SIGKILL)
                await self._wait_exit(self._kill_timeout)
        if self._group_alive():
            self._signal_group(signal.SIGTERM)
            if not await self._wait_group(self._kill_timeout):
                self._signal_group(signal.SIGKILL)
                await self._wait_group(self._kill_timeout)
        self._stdout_transport.close()

    async def _wait_exit(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(asyncio.shield(self._exited), timeout)
        except asyncio.TimeoutError:  # `TimeoutError` itself only from Python 3.11
            return False
        return True

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def _group_alive(self) -> bool:
        """Whether any process of the child's group still runs (zombies do not count: a killed
        grandchild may wait for a reaper that never comes in a container without an init)."""
        try:
            os.killpg(self.process.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        members = _living_group_members(self.process.pid)
        return members is None or bool(members)

    async def _wait_group(self, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._group_alive():
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(_GROUP_POLL)
        return True


async def spawn_process(
    program: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    exit_timeout: float = 2.0,
    kill_timeout: float = 1.0,
    push: bool | None = None,
    stderr: int | IO[Any] | None = None,
) -> ProcessTransport:
    """Start `program` and talk to it over its stdin/stdout; its stderr stays this process's
    unless `stderr` says where it goes (a file, `subprocess.DEVNULL`).

    `exit_timeout`: how long the child may take to exit once its stdin is closed before its group
    is terminated; `kill_timeout`: how long SIGTERM is given before SIGKILL; `push`: see
    `PipeTransport`. Raises `OSError` (`FileNotFoundError`, `PermissionError`) when the program
    cannot be started.

    The child does not inherit `ACP_TRACE` (this process's recording of its connections,
    `wire_trace`): an agent we start recording the same conversation into the same file would
    garble it. Name it in `env` to record the child too.
    """
    if env is None and "ACP_TRACE" in os.environ:
        env = {name: value for name, value in os.environ.items() if name != "ACP_TRACE"}
    process = subprocess.Popen(
        [program, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    transport: ProcessTransport | None = None
    try:
        pipes = await connect_pipes(
            process.stdout,
            process.stdin,
            keep_reading=lambda: transport is not None and transport.input_closed,
        )
    except BaseException:
        process.kill()
        process.wait()
        raise
    transport = ProcessTransport(process, pipes, exit_timeout, kill_timeout, push=push)
    return transport


def _living_group_members(pgid: int) -> list[int] | None:
    """The pids of process group `pgid` that are not zombies, from /proc; None without /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    members = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # After the command: state, ppid, pgrp (proc(5)).
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.append(int(entry))
    return members


def _watch_exit(process: subprocess.Popen[bytes]) -> asyncio.Future[int | None]:
    """A future done when the child exits (reaped): a pidfd on Linux, a thread elsewhere."""
    loop = asyncio.get_running_loop()
    pidfd_open: Callable[[int], int] | None = getattr(os, "pidfd_open", None)
    if pidfd_open is not None:
        try:
            pidfd = pidfd_open(process.pid)
        except OSError:
            pidfd = -1
        if pidfd >= 0:
            exited: asyncio.Future[int | None] = loop.create_future()

            def on_exit() -> None:
                loop.remove_reader(pidfd)
                os.close(pidfd)
                if not exited.done():
                    exited.set_result(process.wait())

            loop.add_reader(pidfd, on_exit)
            return exited
    return asyncio.ensure_future(_wait_in_thread(process))


async def _wait_in_thread(process: subprocess.Popen[bytes]) -> int | None:
    return await asyncio.to_thread(process.wait)
