"""An example ACP client on the generated package: spawns any agent command and prompts it.

    python examples/client.py [--prompt TEXT]... AGENT_PROGRAM [ARGS...]
    python examples/client.py --prompt "count 100" python examples/agent.py

Each `--prompt` is one turn (default: read prompts from stdin, one per line). The reply is printed
as it streams, and the session title whenever the agent changes it. Ctrl-C during a turn sends
`session/cancel` (the turn ends `cancelled`); a second Ctrl-C cancels the request itself, which
sends `$/cancel_request`. The client answers the agent's `fs/read_text_file` from the local disk.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator

from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v1 import PROTOCOL_VERSION, models
from acp_protocol.v1.client import Client, ClientConnection, ClientContext, spawn_agent


class ExampleClient(Client):
    def __init__(self) -> None:
        self.sessions = SessionStore()  # the mirror of each session's info, from its updates

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            print(update.content.text, end="", flush=True)
        if isinstance(update, models.SessionUpdateSessionInfoUpdate):
            before = self.sessions.get(params.session_id)
            after = self.sessions.apply_update(params.session_id, update.to_wire())
            title = None if after is None else after.title
            if title != (None if before is None else before.title):  # absent: unchanged
                print(f"\n[title: {title}]", flush=True)

    async def fs_read_text_file(
        self, params: models.ReadTextFileRequest, ctx: ClientContext
    ) -> models.ReadTextFileResponse:
        with open(params.path, encoding="utf-8") as file:
            lines = file.read().splitlines(keepends=True)
        start = (params.line or 1) - 1
        end = None if params.limit is None else start + params.limit
        return models.ReadTextFileResponse(content="".join(lines[start:end]))


async def prompts(given: list[str]) -> AsyncIterator[str]:
    if given:
        for text in given:
            yield text
        return
    while line := await asyncio.to_thread(sys.stdin.readline):
        if line.strip():
            yield line.strip()


async def one_turn(connection: ClientConnection, session_id: str, text: str) -> str:
    """Send one prompt; Ctrl-C sends session/cancel, a second one cancels the request."""
    content: list[models.ContentBlock] = [models.ContentBlockText(type="text", text=text)]
    request = models.PromptRequest(session_id=session_id, prompt=content)
    turn = asyncio.create_task(connection.agent.session_prompt(request))
    interrupts = 0
    sending: set[asyncio.Task[None]] = set()

    def interrupted() -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1:
            cancel = models.CancelNotification(session_id=session_id)
            task = asyncio.create_task(connection.agent.session_cancel(cancel))
            sending.add(task)
            task.add_done_callback(sending.discard)
        else:
            turn.cancel()  # ambient cancellation: `$/cancel_request` for the prompt

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, interrupted)
    try:
        return (await turn).stop_reason
    except asyncio.CancelledError:
        return "request cancelled"
    finally:
        loop.remove_signal_handler(signal.SIGINT)


async def main(given: list[str], program: str, *args: str) -> int:
    async with spawn_agent(ExampleClient(), program, *args) as connection:
        capabilities = models.ClientCapabilities(
            fs=models.FileSystemCapabilities(read_text_file=True)
        )
        init = models.InitializeRequest(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
        )
        await connection.agent.initialize(init)
        new = models.NewSessionRequest(cwd=os.getcwd(), mcp_servers=[])
        session = await connection.agent.session_new(new)
        async for text in prompts(given):
            print(f"\n[{await one_turn(connection, session.session_id, text)}]", flush=True)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", action="append", default=[], help="one turn (repeatable)")
    parser.add_argument("agent", nargs=argparse.REMAINDER, help="agent program and arguments")
    options = parser.parse_args()
    if not options.agent:
        parser.error("give the agent program to spawn")
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(asyncio.run(main(options.prompt, *options.agent)))
