"""The interop agent served over HTTP and WebSocket in a process of its own (uvicorn on a port the
system picks, printed on stdout), for the tests where the server vanishes (SIGKILL)."""

from __future__ import annotations

import asyncio
import socket
import sys

import uvicorn
from acp_protocol.v1.agent import http_app

from tests.interop.our_agent import InteropAgent


async def main() -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # uvicorn sets none on it
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(http_app(InteropAgent), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    serving = asyncio.get_running_loop().create_task(server.serve(sockets=[listener]))
    while not server.started:
        await asyncio.sleep(0.01)
    print(listener.getsockname()[1], flush=True)
    await serving


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
