"""The NDJSON floor: the least work a JSON-RPC peer pair can do over the same pipes.

orjson (or json) encode/decode, a dict lookup on `method`, no validation, no cancellation, no
per-request state beyond one future. It is the baseline the runtime benchmark divides by.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from acp_protocol.runtime.json_codec import decode, encode


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
        self.writer.write(encode(message) + b"\n")
        await self.writer.drain()
        return await future

    async def notify(self, method: str, params: Any) -> None:
        self.writer.write(encode({"jsonrpc": "2.0", "method": method, "params": params}) + b"\n")
        await self.writer.drain()

    async def run(self) -> None:
        while line := await self.reader.readline():
            message = decode(line)
            method = message.get("method")
            if method is None:
                self.pending.pop(message["id"]).set_result(message.get("result"))
                continue
            result = self.handlers[method](message.get("params"))
            if "id" in message:
                answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
                self.writer.write(encode(answer) + b"\n")
