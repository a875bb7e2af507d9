"""The v2 agent the broken v2 fixtures break: the Python v2 starter's agent (the typed layer,
which carries out the prompt lifecycle) on a stdio transport whose writes are looked at frame by
frame, where each bug lives, correct unless a `Bugs` flag says otherwise.

It answers `initialize` with version 2 and the session baseline, streams a prompt's words back
50 ms apart (its work, between `running` and `idle`), and for a prompt starting `ask ` first asks
the client's permission. Each fixture `v2_*.py` in this folder is this agent with one bug.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, replace
from typing import Any

from acp_protocol.runtime import SessionStore, open_stdio, run
from acp_protocol.runtime.transports.pipes import PipeTransport
from acp_protocol.v2 import agent as agent_module
from acp_protocol.v2 import builders, models
from acp_protocol.v2.agent import Agent, AgentContext, connect_agent
from acp_protocol.v2.behaviour import BEHAVIOUR

WORD_PAUSE = 0.05
LATE = 0.05
"""Seconds after the frame it follows that a bug's extra update is written."""


@dataclass(frozen=True)
class Bugs:
    no_idle_after_work: bool = False
    """The `idle` update of work that ended normally (`end_turn`) is never written."""
    update_after_idle: bool = False
    """The last streamed chunk of work that ended normally is written once more, after its
    `idle` update."""
    update_after_close: bool = False
    """An `idle` snapshot of the session is written 50 ms after the `session/close` answer."""
    no_requires_action: bool = False
    """The `requires_action` update of work waiting on a permission request is never written."""
    ignores_retry_key: bool = False
    """The prompt's `idempotencyKey` is ignored: a retry is inserted again (the SDK runs with
    the edition's lifecycle less its `retry_key`)."""
    no_replay_complete: bool = False
    """A `session/resume` asking a replay (`replayFrom`) is answered without its
    `replay_complete` update."""


class BrokenAgent(Agent):
    def __init__(self) -> None:
        self.store = SessionStore()
        self.session_store = self.store  # the SDK answers `session/list` and `session/close`

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(
            protocol_version=2, info=models.Implementation(name="broken-v2", version="0")
        )

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        session_id = f"session-{uuid.uuid4()}"
        await self.store.acreate(session_id, params.cwd)
        return models.NewSessionResponse(session_id=session_id)

    async def session_resume(
        self, params: models.ResumeSessionRequest, ctx: AgentContext
    ) -> models.ResumeSessionResponse:
        if params.replay_from is not None:  # no history is retained: an empty replay, marked
            done = builders.session_update.replay_complete()
            await ctx.client.session_update(
                models.UpdateSessionNotification(session_id=params.session_id, update=done)
            )
        idle = builders.session_update.state_update.idle.end_turn()
        await ctx.client.session_update(
            models.UpdateSessionNotification(session_id=params.session_id, update=idle)
        )
        return models.ResumeSessionResponse()

    async def session_cancel(
        self, params: models.CancelSessionNotification, ctx: AgentContext
    ) -> None:
        """The SDK has cancelled the session's work."""

    async def session_prompt(self, params: models.PromptRequest, ctx: AgentContext) -> str | None:
        text = " ".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        if text.startswith("ask "):
            option = models.PermissionOption(option_id="allow", name="Allow", kind="allow_once")
            question = models.RequestPermissionRequest(
                session_id=params.session_id, title=text, options=[option]
            )
            answer = (await ctx.client.session_request_permission(question)).outcome
            if isinstance(answer, models.RequestPermissionOutcomeCancelled):
                return "cancelled"
        for word in text.split():
            chunk = builders.session_update.agent_message_chunk(f"reply-{ctx.message_id}", word)
            await ctx.client.session_update(
                models.UpdateSessionNotification(session_id=params.session_id, update=chunk)
            )
            await asyncio.sleep(WORD_PAUSE)
        return "end_turn"


class Tapped:
    """The stdio transport, its reads noted (which request ids are `session/close`s) and its
    writes looked at frame by frame, where the bugs are."""

    def __init__(self, transport: PipeTransport, bugs: Bugs) -> None:
        self.transport = transport
        self.bugs = bugs
        self.pending: list[bytes] = []
        """The parts of the line read so far (a 40 MB frame arrives in many reads)."""
        self.closes: dict[Any, str] = {}
        """Request id of a `session/close` → its session."""
        self.last_chunk: dict[str, bytes] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    def deliver_to(self, sink: Any) -> bool:
        return False  # read through `read`, where the close requests are noted

    async def read(self) -> bytes:
        chunk = await self.transport.read()
        if b"\n" not in chunk:  # a long line: its parts are kept, never joined per read
            self.pending.append(chunk)
            return chunk
        lines = (b"".join(self.pending) + chunk).split(b"\n")
        self.pending = [lines.pop()]
        for line in lines:
            message = parsed(line)
            if message.get("method") == "session/close" and "id" in message:
                self.closes[message["id"]] = message.get("params", {}).get("sessionId")
        return chunk

    def write(self, data: bytes, *, batch: int = 0) -> None:
        for line in data.split(b"\n"):
            if line:
                self.write_frame(line, batch)

    def write_frame(self, line: bytes, batch: int) -> None:
        message = parsed(line)
        update = message.get("params", {}).get("update", {}) if "method" in message else {}
        session = message.get("params", {}).get("sessionId")
        kind, state = update.get("sessionUpdate"), update.get("state")
        ended = state == "idle" and update.get("stopReason") == "end_turn"
        if self.bugs.no_idle_after_work and ended:
            return
        if self.bugs.no_requires_action and state == "requires_action":
            return
        if self.bugs.no_replay_complete and kind == "replay_complete":
            return
        self.transport.write(line + b"\n", batch=batch)
        if kind == "agent_message_chunk":
            self.last_chunk[session] = line
        if self.bugs.update_after_idle and ended and session in self.last_chunk:
            self.later(self.last_chunk.pop(session))
        if self.bugs.update_after_close and message.get("id") in self.closes:
            closed = self.closes.pop(message["id"])
            idle = {"sessionUpdate": "state_update", "state": "idle"}
            notification = {"sessionId": closed, "update": idle}
            frame = {"jsonrpc": "2.0", "method": "session/update", "params": notification}
            self.later(json.dumps(frame).encode())

    def later(self, line: bytes) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(LATE, self.transport.write, line + b"\n")


def parsed(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


async def main(bugs: Bugs) -> None:
    if bugs.ignores_retry_key:  # the agent's router reads the role module's BEHAVIOUR
        lifecycle = BEHAVIOUR.lifecycle
        assert lifecycle is not None
        ignoring = replace(BEHAVIOUR, lifecycle=replace(lifecycle, retry_key=None))
        vars(agent_module)["BEHAVIOUR"] = ignoring
    transport = Tapped(await open_stdio(), bugs)
    async with connect_agent(BrokenAgent(), transport) as connection:
        await connection.wait_closed()


def serve(bugs: Bugs) -> None:
    run(main(bugs))
