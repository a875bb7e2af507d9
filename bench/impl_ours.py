"""Ours: the generated typed layer (`acp_protocol.v1`) on our runtime, full validation.

The agent sends through its typed `ClientPeer` (params built as models, results validated); the
client is a `Client` subclass whose params are validated per method before its handler runs.
Run: python bench/impl_ours.py {notify,rt1,rt64,latency,memory} SIZE
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import workloads
from acp_protocol.runtime import CancelSignal, RequestCancelled, open_fds
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentConnection, connect_agent
from acp_protocol.v1.client import Client, ClientConnection, ClientContext, connect_client
from workloads import FILE_TEXT, READ_PATH, SESSION_ID, SLOW_PATH


class BenchClient(Client):
    def __init__(self, expected_updates: int = 0) -> None:
        self.expected_updates = expected_updates
        self.seen = 0
        self.all_seen = asyncio.Event()
        self.slow_started: asyncio.Queue[None] = asyncio.Queue()

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.seen += 1
        if self.seen == self.expected_updates:
            self.all_seen.set()

    async def fs_read_text_file(
        self, params: models.ReadTextFileRequest, ctx: ClientContext
    ) -> models.ReadTextFileResponse:
        if params.path == SLOW_PATH:
            self.slow_started.put_nowait(None)
            await ctx.wait_cancelled()
            raise RequestCancelled()
        return models.ReadTextFileResponse(content=FILE_TEXT)


def chunk() -> models.SessionNotification:
    content = models.ContentBlockText(type="text", text=workloads.CHUNK_TEXT)
    update = models.SessionUpdateAgentMessageChunk(
        session_update="agent_message_chunk", content=content
    )
    return models.SessionNotification(session_id=SESSION_ID, update=update)


def read(path: str = READ_PATH) -> models.ReadTextFileRequest:
    return models.ReadTextFileRequest(session_id=SESSION_ID, path=path)


class Ours:
    name = "ours"

    async def _pair(self, client: BenchClient) -> tuple[AgentConnection, ClientConnection]:
        (agent_read, agent_write), (client_read, client_write) = workloads.pipe_ends()
        agent = connect_agent(Agent(), await open_fds(agent_read, agent_write))
        served = connect_client(client, await open_fds(client_read, client_write))
        return agent, served

    async def throughput(self, kind: str, n: int) -> float:
        client = BenchClient(expected_updates=n)
        agent, served = await self._pair(client)
        update = chunk()
        async with agent, served:
            peer = agent.client
            return await workloads.drive(
                kind,
                n,
                lambda: peer.session_update(update),
                lambda: peer.fs_read_text_file(read()),
                client.all_seen,
            )

    async def latency(self, count: int) -> dict[str, float | None]:
        client = BenchClient()
        agent, served = await self._pair(client)
        cancels = []
        async with agent, served:
            peer = agent.client
            round_trip = await workloads.round_trip_p50(
                count, lambda: peer.fs_read_text_file(read())
            )
            for _ in range(count):
                signal = CancelSignal()
                call = asyncio.create_task(peer.fs_read_text_file(read(SLOW_PATH), cancel=signal))
                await client.slow_started.get()
                started = time.perf_counter()
                signal.cancel()
                try:
                    await call
                except RequestCancelled:
                    cancels.append(time.perf_counter() - started)
                else:
                    raise AssertionError("the slow read was answered, not cancelled")
        return {
            "round_trip_p50_ms": round_trip,
            "cancel_p50_ms": workloads.percentile(cancels, 0.5) * 1e3,
            "cancel_p99_ms": workloads.percentile(cancels, 0.99) * 1e3,
        }

    async def memory(self, count: int) -> float:
        async def caller(read_fd: int, write_fd: int) -> AgentConnection:
            # Warm-up, outside the measured span: pydantic loads its plugins (importlib.metadata,
            # email, zipfile: ~0.8 MB) when the first model validates, once per process.
            read()
            connection = connect_agent(Agent(), await open_fds(read_fd, write_fd))
            connection.start()
            return connection

        def start_request(connection: Any) -> Any:
            return connection.client.fs_read_text_file(read())

        return await workloads.pending_memory(count, caller, start_request)


if __name__ == "__main__":
    workloads.serve(Ours())
