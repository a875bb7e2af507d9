"""The agent the broken fixtures break: a small ACP v1 agent on the raw runtime (`Connection`
and `MethodHandlers`, no typed layer), correct unless a `Bugs` flag says otherwise.

It answers `initialize` with version 1 and no optional capability, `session/new` with a fresh
id, and `session/prompt` by streaming the prompt's words back as `agent_message_chunk` updates,
50 ms apart, then `end_turn`; `session/cancel` ends the session's turn `cancelled`, and
`$/cancel_request` ends the request (-32800, by the runtime). Params are checked against the
generated models (-32602). Each fixture in this folder is this agent with one bug.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from dataclasses import dataclass
from typing import Any

from acp_protocol.runtime import (
    Connection,
    InvalidParams,
    MethodHandlers,
    RequestContext,
    open_stdio,
    run,
)
from acp_protocol.runtime.transports.pipes import PipeTransport
from acp_protocol.runtime.validators import validator_for
from acp_protocol.v1 import models
from pydantic import ValidationError

WORD_PAUSE = 0.05


@dataclass(frozen=True)
class Bugs:
    answers_notifications: bool = False
    """Every notification read gets a response (`"id": null`)."""
    advertises_unserved: bool = False
    """`initialize` advertises `sessionCapabilities.list`, and `session/list` answers -32601."""
    update_after_answer: bool = False
    """One more `session/update` of the turn is sent 50 ms after the prompt's answer."""
    ignores_cancel: bool = False
    """`session/cancel` and `$/cancel_request` change nothing: the turn runs to `end_turn`."""
    drops_answers_at_eof: bool = False
    """At the end of stdin the process exits at once, pending prompts unanswered."""


def checked(params: Any, model: Any) -> Any:
    try:
        return validator_for(model)(params)
    except ValidationError as error:
        raise InvalidParams.from_validation(error) from None


class Agent:
    def __init__(self, bugs: Bugs) -> None:
        self.bugs = bugs
        self.cancelled: dict[str, asyncio.Event] = {}
        self.connection: Connection | None = None
        self.late: set[asyncio.Future[None]] = set()

    def handlers(self) -> MethodHandlers:
        return MethodHandlers(
            requests={
                "initialize": self.initialize,
                "session/new": self.session_new,
                "session/prompt": self.session_prompt,
            },
            notifications={"session/cancel": self.session_cancel},
        )

    async def initialize(self, params: Any, ctx: RequestContext) -> Any:
        checked(params, models.InitializeRequest)
        result: dict[str, Any] = {
            "protocolVersion": 1,
            "agentInfo": {"name": "broken-fixture", "version": "0"},
        }
        if self.bugs.advertises_unserved:
            result["agentCapabilities"] = {"sessionCapabilities": {"list": {}}}
        return result

    async def session_new(self, params: Any, ctx: RequestContext) -> Any:
        checked(params, models.NewSessionRequest)
        session_id = f"session-{uuid.uuid4()}"
        self.cancelled[session_id] = asyncio.Event()
        return {"sessionId": session_id}

    async def session_prompt(self, params: Any, ctx: RequestContext) -> Any:
        request = checked(params, models.PromptRequest)
        session_id = request.session_id
        cancelled = self.cancelled.setdefault(session_id, asyncio.Event())
        cancelled.clear()
        words = " ".join(b.text for b in request.prompt if isinstance(b, models.ContentBlockText))
        for word in words.split():
            if cancelled.is_set() and not self.bugs.ignores_cancel:
                return {"stopReason": "cancelled"}
            await ctx.notify("session/update", update(session_id, word))
            try:
                await asyncio.sleep(WORD_PAUSE)
            except asyncio.CancelledError:
                if not self.bugs.ignores_cancel:
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
        if self.bugs.update_after_answer:
            asyncio.get_running_loop().call_later(WORD_PAUSE, self.late_update, session_id)
        return {"stopReason": "end_turn"}

    def late_update(self, session_id: str) -> None:
        assert self.connection is not None
        sent = asyncio.ensure_future(
            self.connection.notify("session/update", update(session_id, "late"))
        )
        self.late.add(sent)
        sent.add_done_callback(self.late.discard)

    async def session_cancel(self, params: Any) -> None:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if session_id in self.cancelled:
            self.cancelled[session_id].set()


def update(session_id: str, word: str) -> dict[str, Any]:
    chunk = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": word + " "},
    }
    return {"sessionId": session_id, "update": chunk}


class Tapped:
    """The stdio transport with the bugs that live below the dispatcher: reads are looked at
    line by line (a notification answered; the end of input ends the process)."""

    def __init__(self, transport: PipeTransport, bugs: Bugs) -> None:
        self.transport = transport
        self.bugs = bugs
        self.pending = b""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    def deliver_to(self, sink: Any) -> bool:
        return False  # read through `read`, where the bugs are

    async def read(self) -> bytes:
        chunk = await self.transport.read()
        if not chunk and self.bugs.drops_answers_at_eof:
            os._exit(0)
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


async def main(bugs: Bugs) -> None:
    agent = Agent(bugs)
    transport = Tapped(await open_stdio(), bugs)
    async with Connection(transport, agent.handlers()) as connection:
        agent.connection = connection
        await connection.wait_closed()


def serve(bugs: Bugs) -> None:
    run(main(bugs))
