"""One agent server process of the scale tests: a v1 agent whose sessions are in PostgreSQL,
served over Streamable HTTP and WebSocket by uvicorn on a port the system picks (printed on
stdout), with a route for nginx.

    python -m tests.scale.agent_server DSN SCHEMA ROUTE

The agent has no code for session/list, load or resume: the runtime answers them from the store
(session_replay). A prompt `T` streams `T:1` and `T:2`, then answers; the prompt `hang` streams
`hang@<pid>` and never answers (the test kills this process while it is in flight).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import uuid

import uvicorn
from acp_protocol.runtime.session_postgres import open_postgres_store
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext, http_app


class Teller(Agent):
    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=f"sess_{uuid.uuid4().hex}")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        text = params.prompt[0].to_wire()["text"]
        parts = [f"hang@{os.getpid()}"] if text == "hang" else [f"{text}:1", f"{text}:2"]
        for part in parts:
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": part},
            }
            await ctx.client.session_update(
                models.SessionNotification.model_validate(
                    {"sessionId": params.session_id, "update": update}
                )
            )
        if text == "hang":
            await asyncio.Event().wait()
        return models.PromptResponse(stop_reason="end_turn")


async def main(dsn: str, schema: str, route: str) -> None:
    agent = Teller()
    agent.session_store = await open_postgres_store(dsn, schema=schema, pool_size=4)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    app = http_app(agent, HttpServerOptions(route=route))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    serving = asyncio.get_running_loop().create_task(server.serve(sockets=[listener]))
    while not server.started:
        await asyncio.sleep(0.01)
    print(listener.getsockname()[1], flush=True)
    await serving


if __name__ == "__main__":
    try:
        asyncio.run(main(*sys.argv[1:4]))
    except KeyboardInterrupt:
        sys.exit(130)
