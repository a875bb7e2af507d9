"""Serving an ASGI app on loopback for the remote-transport tests: uvicorn in this event loop, on
a port the system picks, stopped when the block ends."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from acp_protocol.runtime.transports.http_connection import DIRECT
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.runtime.transports.http_server import AcpHttpServer
from acp_protocol.runtime.transports.transport import Transport
from acp_protocol.runtime.transports.uvicorn_ws import AcpWebSocket


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """`http://127.0.0.1:<port>` while the ASGI `app` is served there. Ours is closed with its
    `close()`; an app without one (the official SDK's) through the ASGI lifespan's shutdown."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # uvicorn leaves a socket it is given as it is: without this, a response's head and body
    # are two writes and the second waits for the client's delayed ACK (40 ms).
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    closes = hasattr(app, "close")
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off" if closes else "on",
        ws=AcpWebSocket,  # as docs/transports.md serves it (`acp.websocket.direct`)
        ws_per_message_deflate=False,  # as docs/transports.md advises
    )
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[listener]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        if closes:
            await app.close()
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        listener.close()


@contextlib.asynccontextmanager
async def listening(*command: str) -> AsyncIterator[str]:
    """The URL a server program prints as its first line (our TypeScript agent or the official
    TypeScript SDK's, each with `--listen`), while it runs; it stops at the end of its stdin and
    is killed if it has not after 10 s."""
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 30)
        if not line.startswith(b"http"):
            raise AssertionError(f"{command[:2]} printed no URL (exit {await process.wait()})")
        yield line.decode().strip()
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
            raise AssertionError(f"{command[:2]} did not stop at the end of its stdin") from None


class HeldConnection:
    """A connection's `Served` that does nothing: the test reads and writes its transport."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.ended = asyncio.Event()

    async def __aenter__(self) -> HeldConnection:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.transport.close()

    async def wait_closed(self) -> None:
        await self.ended.wait()


class RecordingServer:
    """Our ASGI app, recording each connection's transport and, per WebSocket, whether the scope
    offered `acp.websocket.direct` and its socket (`AcpWebSocket`, or None)."""

    def __init__(self, options: HttpServerOptions | None = None) -> None:
        self.held: list[HeldConnection] = []
        self.direct: list[bool] = []
        self.sockets: list[Any] = []
        self.app = AcpHttpServer(self._connect, options)

    def _connect(self, transport: Transport) -> HeldConnection:
        self.held.append(HeldConnection(transport))
        return self.held[-1]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            direct = scope.get("extensions", {}).get(DIRECT)
            self.direct.append(direct is not None)
            self.sockets.append(None if direct is None else direct["socket"])
        await self.app(scope, receive, send)

    async def close(self) -> None:
        for held in self.held:
            held.ended.set()
        await self.app.close()
        # pytest keeps the fixture's value: keep no connection alive with it (a socket holds its
        # connection, tests/remote/test_remote_hostile.py counts what is left of them)
        self.held.clear()
        self.sockets.clear()
