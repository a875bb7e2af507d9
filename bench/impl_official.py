"""Official: `agent-client-protocol==0.12.1`, its `AgentSideConnection` / `ClientSideConnection`.

Runs in the official SDK's own environment (`.venv-official`, made by `make bench`); it imports
nothing of ours but `workloads.py` (standard library only). The SDK has no request cancellation,
so the latency workload reports the round trip alone and cancellation as unsupported (None).
Run: .venv-official/bin/python bench/impl_official.py {notify,rt1,rt64,latency,memory} SIZE
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import workloads
from workloads import FILE_TEXT, READ_PATH, SESSION_ID

warnings.filterwarnings("ignore", category=DeprecationWarning)

from acp import text_block, update_agent_message  # noqa: E402
from acp.core import AgentSideConnection, ClientSideConnection  # noqa: E402
from acp.schema import ReadTextFileResponse  # noqa: E402


class BenchClient:
    """The client side: counts updates, answers reads at once (the SDK's client protocol)."""

    def __init__(self, expected_updates: int = 0) -> None:
        self.expected_updates = expected_updates
        self.seen = 0
        self.all_seen = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.seen += 1
        if self.seen == self.expected_updates:
            self.all_seen.set()

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=FILE_TEXT)


class BenchAgent:
    """The agent side only sends; the SDK's `Agent` protocol is duck-typed at run time."""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn


def _untyped(side: object) -> Any:
    """Our bench sides implement only the methods the workloads call, not the SDK's whole
    `Agent` / `Client` protocols (as its own examples do); the SDK does not check."""
    return side


class Official:
    name = "official"

    async def _pair(self, client: BenchClient) -> tuple[Any, Any]:
        (agent_read, agent_write), (client_read, client_write) = workloads.pipe_ends()
        agent_reader, agent_writer = await workloads.stream_pair(agent_read, agent_write)
        client_reader, client_writer = await workloads.stream_pair(client_read, client_write)
        agent = AgentSideConnection(_untyped(BenchAgent()), agent_writer, agent_reader)
        served = ClientSideConnection(_untyped(client), client_writer, client_reader)
        return agent, served

    async def throughput(self, kind: str, n: int) -> float:
        client = BenchClient(expected_updates=n)
        agent, served = await self._pair(client)
        update = update_agent_message(text_block(workloads.CHUNK_TEXT))
        rate = await workloads.drive(
            kind,
            n,
            lambda: agent.session_update(session_id=SESSION_ID, update=update),
            lambda: agent.read_text_file(session_id=SESSION_ID, path=READ_PATH),
            client.all_seen,
        )
        await agent.close()
        await served.close()
        return rate

    async def latency(self, count: int) -> dict[str, float | None]:
        agent, served = await self._pair(BenchClient())
        round_trip = await workloads.round_trip_p50(
            count, lambda: agent.read_text_file(session_id=SESSION_ID, path=READ_PATH)
        )
        await agent.close()
        await served.close()
        # No `$/cancel_request`, no way to cancel an outgoing request: unsupported.
        return {"round_trip_p50_ms": round_trip, "cancel_p50_ms": None, "cancel_p99_ms": None}

    async def memory(self, count: int) -> float:
        async def caller(read_fd: int, write_fd: int) -> Any:
            reader, writer = await workloads.stream_pair(read_fd, write_fd)
            return AgentSideConnection(_untyped(BenchAgent()), writer, reader)

        def start_request(agent: Any) -> Any:
            return agent.read_text_file(session_id=SESSION_ID, path=READ_PATH)

        return await workloads.pending_memory(count, caller, start_request)


if __name__ == "__main__":
    workloads.serve(Official())
