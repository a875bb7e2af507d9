"""The two-process floor: raw NDJSON over stdio with orjson and asyncio streams, no validation,
dispatch by dict lookup. Run: `floor_peer.py agent LOOP`, or `floor_peer.py client N LOOP --
AGENT COMMAND…` (prints the same JSON line as the other clients)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

import orjson
from schedule import CHUNK, FILE_TEXT, READ_PATH, measure

Handler = Callable[[Any], Any]


class Peer:
    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handlers: dict[str, Any]
    ) -> None:
        self.reader, self.writer, self.handlers = reader, writer, handlers
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(orjson.dumps(message) + b"\n")

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        await self.writer.drain()
        return await future

    async def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})
        await self.writer.drain()

    async def serve(self) -> None:
        while line := await self.reader.readline():
            message = orjson.loads(line)
            if "method" not in message:
                self.pending.pop(message["id"]).set_result(message.get("result"))
            elif "id" in message:
                task = asyncio.ensure_future(self._answer(message))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
            else:
                outcome = self.handlers[message["method"]](message.get("params"))
                if asyncio.iscoroutine(outcome):
                    await outcome

    async def _answer(self, message: dict[str, Any]) -> None:
        outcome = self.handlers[message["method"]](message.get("params"))
        result = await outcome if asyncio.iscoroutine(outcome) else outcome
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})


async def agent() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    peer: Peer

    async def prompt(params: Any) -> Any:
        session = params["sessionId"]
        kind, *args = params["prompt"][0]["text"].split()
        if kind == "flood":
            chunk = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": CHUNK},
            }
            update = {"sessionId": session, "update": chunk}
            for _ in range(int(args[0])):
                await peer.notify("session/update", update)
        else:
            left = [int(args[0])]
            read = {"sessionId": session, "path": READ_PATH}

            async def worker() -> None:
                while left[0] > 0:
                    left[0] -= 1
                    await peer.request("fs/read_text_file", read)

            await asyncio.gather(*(worker() for _ in range(int(args[1]))))
        return {"stopReason": "end_turn"}

    handlers = {
        "initialize": lambda params: {"protocolVersion": params["protocolVersion"]},
        "session/new": lambda params: {"sessionId": "bench"},
        "session/prompt": prompt,
    }
    peer = Peer(reader, writer, handlers)
    await peer.serve()


async def client(n: int, command: list[str]) -> None:
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**26
    )
    assert process.stdout is not None and process.stdin is not None
    seen = [0]

    def update(params: Any) -> None:
        seen[0] += 1

    handlers = {"session/update": update, "fs/read_text_file": lambda p: {"content": FILE_TEXT}}
    peer = Peer(process.stdout, process.stdin, handlers)
    serving = asyncio.ensure_future(peer.serve())
    await peer.request("initialize", {"protocolVersion": 1})
    session = (await peer.request("session/new", {"cwd": "/", "mcpServers": []}))["sessionId"]

    async def prompt(text: str) -> Any:
        params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
        return await peer.request("session/prompt", params)

    await measure(f"floor-{sys.argv[3]}", n, prompt, lambda: seen[0])
    process.stdin.close()
    await process.wait()
    serving.cancel()


def run(main: Any, loop: str) -> None:
    if loop == "uvloop":
        import uvloop

        uvloop.run(main)
    else:
        asyncio.run(main)


if __name__ == "__main__":
    if sys.argv[1] == "agent":
        run(agent(), sys.argv[2])
    else:
        run(client(int(sys.argv[2]), sys.argv[sys.argv.index("--") + 1 :]), sys.argv[3])
