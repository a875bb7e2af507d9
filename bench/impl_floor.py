"""The NDJSON floor: the least work a JSON-RPC peer pair can do over the same pipes.

orjson encode/decode, a dict lookup on `method`, handlers called synchronously, no validation, no
cancellation, no per-request state but one future. It is the baseline the other implementations
are divided by. Run: python bench/impl_floor.py {notify,rt1,rt64,latency,memory} SIZE
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson
import workloads
from workloads import FILE_TEXT, READ_PATH, SESSION_ID

CHUNK = {
    "sessionId": SESSION_ID,
    "update": {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": workloads.CHUNK_TEXT},
    },
}
READ = {"sessionId": SESSION_ID, "path": READ_PATH}
FILE = {"content": FILE_TEXT}


class FloorPeer:
    """One side: writes frames, reads lines, answers requests from `handlers` synchronously."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.handlers: dict[str, Callable[[Any], Any]] = {}

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.writer.write(orjson.dumps(message) + b"\n")
        await self.writer.drain()
        return await future

    async def notify(self, method: str, params: Any) -> None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        self.writer.write(orjson.dumps(message) + b"\n")
        await self.writer.drain()

    async def run(self) -> None:
        while line := await self.reader.readline():
            message = orjson.loads(line)
            method = message.get("method")
            if method is None:
                self.pending.pop(message["id"]).set_result(message.get("result"))
                continue
            result = self.handlers[method](message.get("params"))
            if "id" in message:
                answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
                self.writer.write(orjson.dumps(answer) + b"\n")


class Floor:
    name = "floor"

    async def _pair(self) -> tuple[FloorPeer, FloorPeer, list[asyncio.Task[None]]]:
        (agent_read, agent_write), (client_read, client_write) = workloads.pipe_ends()
        agent = FloorPeer(*await workloads.stream_pair(agent_read, agent_write))
        client = FloorPeer(*await workloads.stream_pair(client_read, client_write))
        readers = [asyncio.create_task(agent.run()), asyncio.create_task(client.run())]
        return agent, client, readers

    async def throughput(self, kind: str, n: int) -> float:
        agent, client, readers = await self._pair()
        seen = 0
        all_seen = asyncio.Event()

        def on_update(params: Any) -> None:
            nonlocal seen
            seen += 1
            if seen == n:
                all_seen.set()

        client.handlers = {"session/update": on_update, "fs/read_text_file": lambda p: FILE}
        rate = await workloads.drive(
            kind,
            n,
            lambda: agent.notify("session/update", CHUNK),
            lambda: agent.request("fs/read_text_file", READ),
            all_seen,
        )
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        return rate

    async def latency(self, count: int) -> dict[str, float | None]:
        agent, client, readers = await self._pair()
        client.handlers = {"fs/read_text_file": lambda p: FILE}
        p50 = await workloads.round_trip_p50(
            count, lambda: agent.request("fs/read_text_file", READ)
        )
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        # The floor has no cancellation: nothing to measure.
        return {"round_trip_p50_ms": p50, "cancel_p50_ms": None, "cancel_p99_ms": None}

    async def memory(self, count: int) -> float:
        async def caller(read_fd: int, write_fd: int) -> FloorPeer:
            peer = FloorPeer(*await workloads.stream_pair(read_fd, write_fd))
            peer.reader_task = asyncio.create_task(peer.run())  # type: ignore[attr-defined]
            return peer

        return await workloads.pending_memory(
            count, caller, lambda peer: peer.request("fs/read_text_file", READ)
        )


if __name__ == "__main__":
    workloads.serve(Floor())
