"""Our Python WebSocket pair in one process: the cost of a round trip without the kernel.

The bench agent (`ours_agent.py`, `http_app` under uvicorn's `AcpWebSocket`) and the bench client
(`ours_client.py`, `connect_remote`'s WebSocket transport) are joined by two in-memory transports
(each write is handed to the other side's `data_received` in the next callback); the client
prompts `reads N 1`, the agent's `fs/read_text_file` requests one at a time, as the `rt1` phase of
bench/remote.py does over loopback. Prints the wall and CPU time per round trip of each run.

Run: `python bench/stdio/ws_pair_in_process.py N RUNS` (on uvloop). Timings on a shared machine
wander by a fifth; instructions do not. Counted with valgrind, as the difference between two
runs so that start-up cancels out (warm the bytecode caches first; fix the hash seed):

    python bench/stdio/ws_pair_in_process.py 200 1
    PYTHONHASHSEED=0 valgrind --tool=callgrind python bench/stdio/ws_pair_in_process.py 1000 1
    PYTHONHASHSEED=0 valgrind --tool=callgrind python bench/stdio/ws_pair_in_process.py 3000 1

instructions per round trip = (total of 3000 - total of 1000) / 2000 (the `summary:` line of each
`callgrind.out.*`). The block watch is off, as its timer would count valgrind's wall time. The
count still moves with the machine's load (on the 2-core development machine, 187k on a quiet
machine, 222k while a test run was going, for reasons not found), so two trees are compared
counted back to back.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import uvicorn
import uvloop
from acp_protocol.runtime.transports.queues import Inbox
from acp_protocol.runtime.transports.uvicorn_ws import AcpWebSocket
from acp_protocol.runtime.transports.ws_client import WebSocketTransport, _SocketProtocol
from acp_protocol.v1 import PROTOCOL_VERSION, helpers, models
from acp_protocol.v1.agent import http_app
from acp_protocol.v1.client import connect_client
from ours_agent import BenchAgent
from ours_client import BenchClient
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.uri import parse_uri

LIMIT = 64 * 1024 * 1024


class _Wire(asyncio.Transport):
    """One direction of the connection: what is written reaches `peer` in the next callback."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.loop = loop
        self.peer: Any = None
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.loop.call_soon(self.peer, data)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def can_write_eof(self) -> bool:
        return False

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 1), "peername": ("127.0.0.1", 2)}.get(name, default)


async def main(n: int, runs: int) -> None:
    loop = asyncio.get_running_loop()
    app = http_app(BenchAgent, blocking_threshold=None)
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", ws=AcpWebSocket, ws_per_message_deflate=False
    )
    config.load()
    server = AcpWebSocket(config, ServerState(), {})
    websocket = ClientProtocol(parse_uri("ws://127.0.0.1:1/acp"), max_size=LIMIT)
    websocket.send_request(websocket.connect())
    inbox = Inbox(LIMIT)
    client_side = _SocketProtocol(websocket, inbox)
    to_server, to_client = _Wire(loop), _Wire(loop)
    to_server.peer, to_client.peer = server.data_received, client_side.data_received
    server.connection_made(to_client)
    client_side.connection_made(to_server)
    await client_side.opened
    transport = WebSocketTransport(client_side, inbox)
    async with connect_client(BenchClient(), transport, blocking_threshold=None) as connection:
        agent = connection.agent
        capabilities = models.ClientCapabilities(
            fs=models.FileSystemCapabilities(read_text_file=True)
        )
        init = models.InitializeRequest(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
        )
        await agent.initialize(init)
        session = await agent.session_new(models.NewSessionRequest(cwd="/", mcp_servers=[]))

        async def prompt(text: str) -> None:
            block = helpers.text_block(text)
            await agent.session_prompt(
                models.PromptRequest(session_id=session.session_id, prompt=[block])
            )

        await prompt("reads 2000 1")  # warm: models, validators, caches
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            await prompt(f"reads {n} 1")
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"{wall / n * 1e6:.2f} µs wall, {cpu / n * 1e6:.2f} µs CPU per round trip")
    await app.close()


if __name__ == "__main__":
    uvloop.run(main(int(sys.argv[1]), int(sys.argv[2])))
