"""The v2 client the broken v2 client fixtures break: a small ACP v2 client on the generated
package (`acp_protocol.v2.client`), correct unless a `V2ClientBugs` flag says otherwise, run as
the starter clients are: `client.py --prompt TEXT -- AGENT…`.

It starts the agent, sends `initialize` (version 2, its `info`), ends with one line and status 1
when the agent answers another version, opens a session, sends the prompt, prints the agent's
message chunks, waits for the `idle` state update that ends the work and prints its stop reason,
then closes the session (`session/close`, a `-32002` answer counted as closed) and exits 0. A
permission request is asked of a user who takes a second and rejects; a request the agent
withdraws (`$/cancel_request`) is answered `cancelled` by the SDK. Ctrl-C sends `session/cancel`
and waits for the idle update. Each `client_v2_*` fixture in this folder is this client with one
bug.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass

from acp_protocol.runtime import RpcError, run
from acp_protocol.v2 import builders, models
from acp_protocol.v2.client import Client, ClientContext, spawn_agent

USER_THINKS = 1.0
"""Seconds the client's user takes to answer a permission request."""
NOT_FOUND = -32002
LINGER = 0.6


@dataclass(frozen=True)
class V2ClientBugs:
    exits_on_the_answer: bool = False
    """The prompt's answer (its `messageId`) is taken for the end of the turn, as in v1: the
    client prints it, answers what still comes, and exits once the agent is quiet for
    `LINGER` seconds (never waiting for the idle update)."""
    answers_withdrawn_requests: bool = False
    """A permission request the agent withdraws is still answered with the user's choice."""
    close_fails_on_not_found: bool = False
    """A `session/close` answered `-32002` is taken for a failure (exit 1)."""


class V2Client(Client):
    def __init__(self, bugs: V2ClientBugs) -> None:
        self.bugs = bugs
        self.asking = 0
        self.heard: float | None = None
        """When the agent last said something (None: nothing yet, however long that takes)."""

    async def session_request_permission(
        self, params: models.RequestPermissionRequest, ctx: ClientContext
    ) -> models.RequestPermissionResponse:
        self.asking += 1
        try:
            return await self.ask(params)
        finally:
            self.asking -= 1
            self.heard = asyncio.get_running_loop().time()

    async def ask(
        self, params: models.RequestPermissionRequest
    ) -> models.RequestPermissionResponse:
        thinking = asyncio.ensure_future(asyncio.sleep(USER_THINKS))
        if self.bugs.answers_withdrawn_requests:
            while not thinking.done():  # the cancel is swallowed: the user's choice is sent
                try:
                    await asyncio.shield(thinking)
                except asyncio.CancelledError:
                    continue
        else:
            await thinking
        for option in params.options:
            if option.kind.startswith("reject"):
                selected = builders.request_permission_outcome.selected(option.option_id)
                return models.RequestPermissionResponse(outcome=selected)
        cancelled = builders.request_permission_outcome.cancelled()
        return models.RequestPermissionResponse(outcome=cancelled)

    async def session_update(
        self, params: models.UpdateSessionNotification, ctx: ClientContext
    ) -> None:
        self.heard = asyncio.get_running_loop().time()
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            print(update.content.text, end="", flush=True)


async def linger(client: V2Client) -> None:
    """Until the agent has said something and then been quiet for `LINGER` seconds, no
    permission request pending."""
    loop = asyncio.get_running_loop()
    while client.asking or client.heard is None or loop.time() - client.heard < LINGER:
        await asyncio.sleep(0.05)


async def main(bugs: V2ClientBugs, prompt: str, agent: list[str]) -> int:
    client = V2Client(bugs)
    async with spawn_agent(client, agent[0], *agent[1:]) as connection:
        info = models.Implementation(name="broken-v2-client", version="1")
        init = models.InitializeRequest(protocol_version=2, info=info)
        answered = await connection.agent.initialize(init)
        if answered.protocol_version != 2:
            print(
                f"broken v2 client: the agent speaks {answered.protocol_version}", file=sys.stderr
            )
            return 1
        new = models.NewSessionRequest(cwd=os.getcwd())
        session_id = (await connection.agent.session_new(new)).session_id
        session = connection.session(session_id)
        ctrl_c = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, ctrl_c.set)
        message_id = await session.prompt([builders.content_block.text(prompt)])
        if bugs.exits_on_the_answer:
            print(f"\n[{message_id}]")
            lingering = asyncio.ensure_future(linger(client))
            await asyncio.wait(
                (lingering, asyncio.ensure_future(ctrl_c.wait())), return_when="FIRST_COMPLETED"
            )
            if not lingering.done():
                await session.cancel()
                await lingering
            return 0
        ended = asyncio.ensure_future(session.idle(message_id))
        interrupted = asyncio.ensure_future(ctrl_c.wait())
        await asyncio.wait((ended, interrupted), return_when=asyncio.FIRST_COMPLETED)
        interrupted.cancel()
        if not ended.done():
            await session.cancel()
        idle = await ended
        print(f"\n[{idle.stop_reason}]")
        try:
            await connection.agent.session_close(models.CloseSessionRequest(session_id=session_id))
        except RpcError as error:
            if error.code != NOT_FOUND or bugs.close_fails_on_not_found:
                print(f"broken v2 client: session/close failed: {error}", file=sys.stderr)
                return 1
    return 0


def serve(bugs: V2ClientBugs) -> None:
    arguments = sys.argv[1:]
    prompt = "hello"
    if arguments[:1] == ["--prompt"]:
        prompt, arguments = arguments[1], arguments[2:]
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    try:
        sys.exit(run(main(bugs, prompt, arguments)))
    except RpcError as error:  # one line, never a traceback (an unsupported version included)
        sys.exit(f"broken v2 client: {type(error).__name__}: {error}")
