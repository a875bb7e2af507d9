"""The client the broken client fixtures break: a small ACP v1 client on the raw runtime
(`spawn_process`, `Connection`, `MethodHandlers`), correct unless a `ClientBugs` flag says
otherwise, run as the starter clients are: `client.py --prompt TEXT -- AGENT…`.

It starts the agent, sends `initialize` (version 1, `fs.readTextFile` and `fs.writeTextFile`
advertised), ends with one line and status 1 when the agent answers another version, opens a
session, sends the prompt and prints the agent's message chunks, then the stop reason, and exits
0. It serves files under its working directory, answers a permission request with the offered
`reject` option, and on Ctrl-C sends `session/cancel` and waits for the turn's answer. Each
`client_*` fixture in this folder is this client with one bug.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any

from acp_protocol.runtime import Connection, FileService, MethodHandlers, RequestContext, run
from acp_protocol.runtime.transports.process import ProcessTransport, spawn_process


@dataclass(frozen=True)
class ClientBugs:
    answers_notifications: bool = False
    """Every notification read from the agent gets a response (`"id": null`)."""
    never_answers_reads: bool = False
    """`fs/read_text_file` is advertised, and its requests are never answered."""
    ctrl_c_closes_stdin: bool = False
    """Ctrl-C closes the agent's stdin (and exits) instead of sending `session/cancel`."""


class Tapped:
    """The agent's stdio, with the bug that lives below the dispatcher: every notification read
    is answered."""

    def __init__(self, transport: ProcessTransport, bugs: ClientBugs) -> None:
        self.transport = transport
        self.bugs = bugs
        self.pending = b""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    def deliver_to(self, sink: Any) -> bool:
        return False  # read through `read`, where the bug is

    async def read(self) -> bytes:
        chunk = await self.transport.read()
        if self.bugs.answers_notifications:
            lines = (self.pending + chunk).split(b"\n")
            self.pending = lines.pop()
            for line in lines:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and "method" in message and "id" not in message:
                    self.transport.write(b'{"jsonrpc":"2.0","id":null,"result":null}\n')
        return chunk


class Handlers:
    def __init__(self, bugs: ClientBugs) -> None:
        self.bugs = bugs
        self.files = FileService([os.getcwd()])

    def table(self) -> MethodHandlers:
        return MethodHandlers(
            requests={
                "fs/read_text_file": self.read_text_file,
                "fs/write_text_file": self.write_text_file,
                "session/request_permission": self.request_permission,
            },
            notifications={"session/update": self.session_update},
        )

    async def read_text_file(self, params: Any, ctx: RequestContext) -> Any:
        if self.bugs.never_answers_reads:
            await asyncio.Event().wait()
        content = await self.files.read_text_file(
            params["path"], params.get("line"), params.get("limit")
        )
        return {"content": content}

    async def write_text_file(self, params: Any, ctx: RequestContext) -> Any:
        await self.files.write_text_file(params["path"], params["content"])
        return {}

    async def request_permission(self, params: Any, ctx: RequestContext) -> Any:
        for option in params.get("options", []):
            if str(option.get("kind", "")).startswith("reject"):
                return {"outcome": {"outcome": "selected", "optionId": option["optionId"]}}
        return {"outcome": {"outcome": "cancelled"}}

    async def session_update(self, params: Any) -> None:
        update = params.get("update", {}) if isinstance(params, dict) else {}
        content = update.get("content", {})
        if update.get("sessionUpdate") == "agent_message_chunk" and content.get("type") == "text":
            print(content.get("text", ""), end="", flush=True)


async def main(bugs: ClientBugs, prompt: str, agent: list[str]) -> int:
    transport = await spawn_process(agent[0], *agent[1:])
    async with Connection(Tapped(transport, bugs), Handlers(bugs).table()) as connection:
        capabilities = {"fs": {"readTextFile": True, "writeTextFile": True}}
        init = await connection.request(
            "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities}
        )
        if init.get("protocolVersion") != 1:
            print(
                f"broken client: the agent speaks version {init.get('protocolVersion')}, not 1",
                file=sys.stderr,
            )
            return 1
        new = await connection.request("session/new", {"cwd": os.getcwd(), "mcpServers": []})
        session_id = new["sessionId"]
        text = [{"type": "text", "text": prompt}]
        answer = asyncio.ensure_future(
            connection.request("session/prompt", {"sessionId": session_id, "prompt": text})
        )

        sent: list[asyncio.Future[None]] = []

        def ctrl_c() -> None:
            if bugs.ctrl_c_closes_stdin:
                sent.append(asyncio.ensure_future(transport.close_input()))
                answer.cancel()
            else:
                cancel = connection.notify("session/cancel", {"sessionId": session_id})
                sent.append(asyncio.ensure_future(cancel))

        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, ctrl_c)
        try:
            result = await answer
        except asyncio.CancelledError:
            return 0
        print(f"\n[{result['stopReason']}]")
    return 0


def serve(bugs: ClientBugs) -> None:
    arguments = sys.argv[1:]
    prompt = "hello"
    if arguments[:1] == ["--prompt"]:
        prompt, arguments = arguments[1], arguments[2:]
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    sys.exit(run(main(bugs, prompt, arguments)))
