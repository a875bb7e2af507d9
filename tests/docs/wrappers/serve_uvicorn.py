"""docs/transports.md's `serve_uvicorn`: the fragment serves `http_app(MyAgent)` under uvicorn
with `AcpWebSocket` (on a free loopback port in place of 8000), and our v1 client prompts it over
WebSocket, then over Streamable HTTP."""

import asyncio
import contextlib
import socket
from typing import Any

import uvicorn
from tests.docs.serving import MyAgent, MyClient, prompt_once

from acp_protocol.v1 import models
from acp_protocol.v1.client import connect_remote

with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    PORT = probe.getsockname()[1]
configs: list[uvicorn.Config] = []


class _FreePort(uvicorn.Config):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "port": PORT})
        configs.append(self)


uvicorn.Config = _FreePort  # type: ignore[misc]


async def serve() -> None:
    """The fragment: it serves until cancelled."""
    # FRAGMENT


async def main() -> None:
    serving = asyncio.create_task(serve())
    for _ in range(500):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", PORT)) == 0:
                break
        await asyncio.sleep(0.02)
    for scheme in ("ws", "http"):
        client = MyClient()
        async with connect_remote(client, f"{scheme}://127.0.0.1:{PORT}/acp") as conn:
            await conn.agent.initialize(models.InitializeRequest(protocol_version=1))
            await prompt_once(conn, client)
    assert configs[0].ws.__name__ == "AcpWebSocket", configs[0].ws
    serving.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await serving


asyncio.run(main())
