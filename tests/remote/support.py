"""Serving an ASGI app on loopback for the remote-transport tests: uvicorn in this event loop, on
a port the system picks, stopped when the block ends."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
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
