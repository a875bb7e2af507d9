"""Test support for the runtime: a raw JSON-RPC peer on the other end of an in-memory transport.

The raw peer writes exactly the bytes a test gives it and reads back decoded frames, so a test sees
the wire as the real peer would: no second dispatcher in between.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp_protocol.runtime import (
    ACP,
    CancelDialect,
    Connection,
    Handler,
    MemoryTransport,
    MethodHandlers,
    RequestContext,
    memory_pair,
)

if sys.version_info >= (3, 11):
    deadline = asyncio.timeout
else:

    @asynccontextmanager
    async def deadline(seconds: float) -> AsyncIterator[None]:
        """`asyncio.timeout` for Python 3.10: cancel the task after `seconds`; TimeoutError."""
        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        handle = asyncio.get_running_loop().call_later(seconds, expire)
        try:
            yield
        except asyncio.CancelledError:
            if expired:
                raise TimeoutError(f"not done within {seconds} s") from None
            raise
        finally:
            handle.cancel()


WAIT = 2.0
"""Seconds a test waits for a frame that must come."""


class RawPeer:
    """The far end of a connection under test, speaking raw NDJSON."""

    def __init__(self, transport: MemoryTransport):
        self.transport = transport
        self._buffer = b""

    def send_line(self, line: bytes) -> None:
        self.transport.write(line + b"\n")

    def send(self, message: Any) -> None:
        self.send_line(json.dumps(message).encode())

    def request(self, request_id: Any, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def cancel(self, request_id: Any) -> None:
        self.notify("$/cancel_request", {"requestId": request_id})

    async def receive(self, timeout: float = WAIT) -> Any:
        """The next frame the connection wrote, decoded."""
        async with deadline(timeout):
            while b"\n" not in self._buffer:
                chunk = await self.transport.read()
                if not chunk:
                    raise EOFError("the connection closed its end")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    async def receive_all(self, count: int, timeout: float = WAIT) -> list[Any]:
        return [await self.receive(timeout) for _ in range(count)]

    async def expect_silence(self, duration: float = 0.05) -> None:
        """Fail if the connection writes anything within `duration` seconds."""
        try:
            frame = await self.receive(timeout=duration)
        except TimeoutError:
            return
        raise AssertionError(f"expected no frame, got {frame!r}")

    async def close(self) -> None:
        await self.transport.close()


@asynccontextmanager
async def connected(
    handler: Handler | None = None, *, dialect: CancelDialect = ACP, **options: Any
) -> AsyncIterator[tuple[Connection, RawPeer]]:
    """A started connection and the raw peer on its other end; closed afterwards."""
    ours, theirs = memory_pair()
    connection = Connection(ours, handler, dialect=dialect, **options)
    async with connection:
        yield connection, RawPeer(theirs)


@asynccontextmanager
async def linked(
    left: Handler | None = None, right: Handler | None = None, **options: Any
) -> AsyncIterator[tuple[Connection, Connection]]:
    """Two of our connections talking to each other."""
    a, b = memory_pair()
    async with Connection(a, left, **options) as one, Connection(b, right, **options) as two:
        yield one, two


def handlers(
    requests: dict[str, Callable[[Any, RequestContext], Awaitable[Any]]] | None = None,
    notifications: dict[str, Callable[[Any], Awaitable[None]]] | None = None,
) -> MethodHandlers:
    return MethodHandlers(requests, notifications)


async def eventually(condition: Callable[[], object], timeout: float = WAIT) -> None:
    """Wait until `condition()` is true; fail after `timeout` seconds."""
    async with deadline(timeout):
        while not condition():
            await asyncio.sleep(0.001)


async def settle() -> None:
    """Let every ready task and callback run."""
    for _ in range(5):
        await asyncio.sleep(0)


class Tap:
    """Records every frame two linked connections write, in order, as (writer, frame)."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, Any]] = []

    def wrap(self, name: str, transport: MemoryTransport) -> MemoryTransport:
        write = transport.write

        def recording_write(data: bytes, *, batch: int = 0) -> None:
            for line in data.splitlines():
                self.frames.append((name, json.loads(line)))
            write(data, batch=batch)

        transport.write = recording_write  # type: ignore[method-assign]
        return transport

    def cancels(self) -> list[tuple[str, Any]]:
        return [(w, f["params"]) for w, f in self.frames if f.get("method", "").startswith("$/")]


@asynccontextmanager
async def tapped(
    left: Handler | None = None, right: Handler | None = None, **options: Any
) -> AsyncIterator[tuple[Connection, Connection, Tap]]:
    """Two linked connections ("left" and "right") with a tap on the wire."""
    tap = Tap()
    a, b = memory_pair()
    async with (
        Connection(tap.wrap("left", a), left, **options) as one,
        Connection(tap.wrap("right", b), right, **options) as two,
    ):
        yield one, two, tap


FORKING_AGENT = textwrap.dedent("""
    import os, signal, sys, time
    pid = os.fork()
    if pid == 0:
        if sys.argv[2] == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(120)  # ignores EOF; holds the stdout pipe
        os._exit(0)
    with open(sys.argv[1], "w") as out:
        out.write(str(pid))
    if sys.argv[3] == "exit-now":
        sys.exit(0)
    sys.stdin.readline()  # the direct child exits on EOF
""")


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for a reaper does not run)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")
