"""An example ACP client on the generated package: spawns any agent command and prompts it.

    python examples/client.py [--prompt TEXT]... [--auth ID] [--approve-all | --deny-all]
                              [--allow DIR]... [--] AGENT_PROGRAM [ARGS...]
    python examples/client.py --prompt "count 100" python examples/agent.py

Each `--prompt` is one turn (default: read prompts from stdin, one per line). The reply is printed
as it streams, tool calls and the session title as they change. Ctrl-C during a turn sends
`session/cancel` (the turn ends `cancelled`); a second Ctrl-C cancels the request itself, which
sends `$/cancel_request`.

The agent is a program you did not write: its `fs/read_text_file` and `fs/write_text_file` are
served only under the working directory (and each `--allow DIR`); its permission requests are
asked on the terminal, or answered by `--approve-all` / `--deny-all` (denied without a terminal).
An agent that needs authentication lists its methods; choose one with `--auth ID`. Every failure
is one line on stderr and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator

from acp_protocol.runtime import ConnectionClosed, FileService, RpcError
from acp_protocol.runtime import run as run_loop
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v1 import PROTOCOL_VERSION, models
from acp_protocol.v1.client import Client, ClientConnection, ClientContext, spawn_agent

AUTH_REQUIRED = -32000  # ACP ErrorCode "Authentication required"


class ClientFailure(Exception):
    """A failure to tell the user in one line."""


class ExampleClient(Client):
    def __init__(self, roots: list[str], permissions: str) -> None:
        self.sessions = SessionStore()  # the mirror of each session's info, from its updates
        self.file_service = FileService(roots)
        self.permissions = permissions  # "ask", "approve" or "deny"

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            print(update.content.text, end="", flush=True)
        elif isinstance(update, models.SessionUpdateToolCall):
            print(f"\n[tool: {update.title} ({update.status or 'pending'})]", flush=True)
        elif isinstance(update, models.SessionUpdateToolCallUpdate) and update.status:
            print(f"\n[tool {update.tool_call_id}: {update.status}]", flush=True)
        elif isinstance(update, models.SessionUpdateSessionInfoUpdate):
            before = self.sessions.get(params.session_id)
            after = self.sessions.apply_update(params.session_id, update.to_wire())
            title = None if after is None else after.title
            if title != (None if before is None else before.title):  # absent: unchanged
                print(f"\n[title: {title}]", flush=True)

    async def session_request_permission(
        self, params: models.RequestPermissionRequest, ctx: ClientContext
    ) -> models.RequestPermissionResponse:
        """Ask the user; `--approve-all`/`--deny-all` answer alone; no terminal means deny."""
        title = params.tool_call.title or params.tool_call.tool_call_id
        allow = [o for o in params.options if o.kind.startswith("allow")]
        reject = [o for o in params.options if o.kind.startswith("reject")]
        choice = None
        if self.permissions == "approve":
            choice = allow[0] if allow else None
        elif self.permissions == "ask" and sys.stdin.isatty():
            choice = await ask_user(title, params.options)
        else:
            choice = reject[0] if reject else None
        print(f"\n[permission for {title}: {choice.name if choice else 'denied'}]", flush=True)
        if choice is None:
            return models.RequestPermissionResponse(
                outcome=models.RequestPermissionOutcomeCancelled(outcome="cancelled")
            )
        selected = models.RequestPermissionOutcomeSelected(
            outcome="selected", option_id=choice.option_id
        )
        return models.RequestPermissionResponse(outcome=selected)


async def ask_user(
    title: str, options: list[models.PermissionOption]
) -> models.PermissionOption | None:
    menu = ", ".join(f"{i}) {o.name}" for i, o in enumerate(options, 1))
    answer = await asyncio.to_thread(input, f"\nThe agent asks to run {title}: {menu}? ")
    index = int(answer) - 1 if answer.strip().isdigit() else -1
    return options[index] if 0 <= index < len(options) else None


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
    content: list[models.ContentBlock] = [models.ContentBlockText(text=text)]
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


async def new_session(
    connection: ClientConnection, init: models.InitializeResponse, auth: str | None
) -> str:
    """`session/new`; when the agent requires authentication, authenticate with `auth` and retry."""
    new = models.NewSessionRequest(cwd=os.getcwd(), mcp_servers=[])
    try:
        return (await connection.agent.session_new(new)).session_id
    except RpcError as error:
        if error.code != AUTH_REQUIRED:
            raise
    methods = {method_id(m): m for m in init.auth_methods}
    if auth is None or auth not in methods:
        listed = "; ".join(f"{key} ({describe(m)})" for key, m in methods.items()) or "none"
        raise ClientFailure(f"the agent requires authentication: choose --auth ID from: {listed}")
    missing = [name for name in env_vars(methods[auth]) if not os.environ.get(name)]
    if missing:
        raise ClientFailure(
            f"--auth {auth} reads {', '.join(missing)} from the environment: set it"
        )
    await connection.agent.authenticate(models.AuthenticateRequest(method_id=auth))
    return (await connection.agent.session_new(new)).session_id


def method_id(method: models.AuthMethod) -> str:
    return str(getattr(method, "id", None) or getattr(method, "method_id", "?"))


def describe(method: models.AuthMethod) -> str:
    return str(getattr(method, "description", None) or getattr(method, "name", "") or "")


def env_vars(method: models.AuthMethod) -> list[str]:
    """The variables an `env_var` method (newer schemas) reads from the agent's environment."""
    extra = method.model_extra or {}
    return [v["name"] for v in extra.get("vars", []) if isinstance(v, dict) and "name" in v]


async def main(options: argparse.Namespace) -> int:
    roots = [os.getcwd(), *options.allow]
    client = ExampleClient(roots, options.permissions)
    async with spawn_agent(client, *options.agent) as connection:
        capabilities = models.ClientCapabilities(
            fs=models.FileSystemCapabilities(read_text_file=True, write_text_file=True)
        )
        init = await connection.agent.initialize(
            models.InitializeRequest(
                protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
            )
        )
        session_id = await new_session(connection, init, options.auth)
        async for text in prompts(options.prompt):
            print(f"\n[{await one_turn(connection, session_id, text)}]", flush=True)
    return 0


def run(options: argparse.Namespace) -> int:
    """Run the client; every failure is one line on stderr and exit status 1."""
    try:
        return run_loop(main(options))
    except KeyboardInterrupt:
        return 130
    except ClientFailure as failure:
        print(f"client: {failure}", file=sys.stderr)
        return 1
    except (RpcError, ConnectionClosed, OSError) as error:
        print(f"client: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", action="append", default=[], help="one turn (repeatable)")
    parser.add_argument("--auth", help="the authentication method to use when asked")
    parser.add_argument("--allow", action="append", default=[], help="another folder to serve")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--approve-all", dest="permissions", action="store_const", const="approve")
    choice.add_argument("--deny-all", dest="permissions", action="store_const", const="deny")
    parser.set_defaults(permissions="ask")
    parser.add_argument("agent", nargs=argparse.REMAINDER, help="agent program and arguments")
    parsed = parser.parse_args()
    if parsed.agent[:1] == ["--"]:  # `client.py [OPTIONS] -- AGENT…`: the end of our options
        del parsed.agent[0]
    if not parsed.agent:
        parser.error("give the agent program to spawn")
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(run(parsed))
