"""One agent server process of the scale rows (bench/scale.py): a v1 agent on the generated typed
layer, served over Streamable HTTP and WebSocket by uvicorn on uvloop, its port printed on stdout;
it stops at the end of its stdin.

    python bench/scale_agent.py STORE ROUTE

STORE: `memory` (no session store: nothing recorded, as the official TS SDK's server), `sqlite:PATH`
or `postgres:DSN#SCHEMA`. With a store, the runtime records every `session/new` and every
`session/update` the agent sends, committed before the turn's answer (session_replay). ROUTE goes
before the dot of every Acp-Connection-Id (deploy/nginx/acp.conf routes on it). The prompt
`flood N` streams N `agent_message_chunk` updates (bench/stdio/schedule.py's chunk), then answers,
as the official TS SDK's bench agent (bench/stdio/ts/agent.mjs) does.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import uuid
from pathlib import Path

import uvicorn
from acp_protocol.runtime import run
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.v1 import helpers, models
from acp_protocol.v1.agent import Agent, AgentContext, http_app

# bench/stdio's schedule, imported as the stdio peers import it (one module name for mypy too).
sys.path.insert(0, str(Path(__file__).with_name("stdio")))
from schedule import CHUNK


class FloodAgent(Agent):
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
        text = " ".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        kind, count = text.split()
        if kind != "flood":
            raise ValueError(f"scale agent: unknown prompt {text!r}")
        note = models.SessionNotification(
            session_id=params.session_id, update=helpers.agent_message_chunk(CHUNK)
        )
        for _ in range(int(count)):
            await ctx.client.session_update(note)
        return models.PromptResponse(stop_reason="end_turn")


async def open_store(store: str) -> SessionStore | None:
    if store == "memory":
        return None
    kind, _, where = store.partition(":")
    if kind == "sqlite":
        return SessionStore(where)
    if kind == "postgres":
        from acp_protocol.runtime.session_postgres import open_postgres_store

        dsn, _, schema = where.partition("#")
        return await open_postgres_store(dsn, schema=schema, pool_size=10)
    raise SystemExit(f"scale agent: unknown store {store!r}")


async def serve(store: str, route: str) -> None:
    agent = FloodAgent()
    agent.session_store = await open_store(store)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    app = http_app(agent, HttpServerOptions(route=route))
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        ws="websockets-sansio",
        ws_per_message_deflate=False,  # as ws's server, under the TypeScript one
        backlog=4096,
    )
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[listener]))
    while not server.started:
        await asyncio.sleep(0.01)
    print(listener.getsockname()[1], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    await app.close()
    server.should_exit = True
    await task
    if agent.session_store is not None:
        await agent.session_store.aclose()


if __name__ == "__main__":
    run(serve(sys.argv[1], sys.argv[2]), event_loop="uvloop")
