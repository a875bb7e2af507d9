"""Two-process bench agent on the generated typed layer (`acp_protocol.v1`), stdio.
Run: python ours_agent.py LOOP (`uvloop` or `asyncio`). With `--listen` after LOOP it serves over
ACP's remote transport instead (`http_app` under uvicorn, 127.0.0.1, any port; bench/remote.py),
prints its URL and stops at the end of its stdin."""

from __future__ import annotations

import asyncio
import socket
import sys

from acp_protocol.runtime import run
from acp_protocol.v1 import helpers, models
from acp_protocol.v1.agent import Agent, AgentContext, http_app, run_agent
from schedule import CHUNK, READ_PATH


class BenchAgent(Agent):
    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id="bench")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        text = " ".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        kind, *args = text.split()
        session = params.session_id
        if kind == "flood":
            note = models.SessionNotification(
                session_id=session, update=helpers.agent_message_chunk(CHUNK)
            )
            for _ in range(int(args[0])):
                await ctx.client.session_update(note)
        else:
            left = [int(args[0])]
            read = models.ReadTextFileRequest(session_id=session, path=READ_PATH)

            async def worker() -> None:
                while left[0] > 0:
                    left[0] -= 1
                    await ctx.client.fs_read_text_file(read)

            await asyncio.gather(*(worker() for _ in range(int(args[1]))))
        return models.PromptResponse(stop_reason="end_turn")


async def listen() -> None:
    """Serve `http_app(BenchAgent)` under uvicorn until stdin ends."""
    import uvicorn
    from acp_protocol.runtime.transports.uvicorn_ws import AcpWebSocket

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    app = http_app(BenchAgent)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        ws=AcpWebSocket,  # as docs/transports.md serves it
        ws_per_message_deflate=False,  # as ws's server, under both TypeScript servers
    )
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[listener]))
    while not server.started:
        await asyncio.sleep(0.01)
    print(f"http://127.0.0.1:{listener.getsockname()[1]}/acp", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    await app.close()
    server.should_exit = True
    await task


if __name__ == "__main__":
    main = listen() if sys.argv[2:] == ["--listen"] else run_agent(BenchAgent())
    run(main, event_loop=sys.argv[1])
