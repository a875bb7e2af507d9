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
    title_after_answer: bool = False
    """Not a bug: 50 ms after the prompt's answer, a `session_info_update` titling the session
    and a `usage_update` (the session's, not the turn's: "Agents send this notification to
    update session information like title"; what claude-agent-acp 0.101.0 does)."""
    ignores_cancel: bool = False
    """`session/cancel` and `$/cancel_request` change nothing: the turn runs to `end_turn`."""
    drops_answers_at_eof: bool = False
    """At the end of stdin the process exits at once, pending prompts unanswered."""
    drops_requests_at_eof: bool = False
    """`session/new` takes 2 s; at the end of stdin the process waits for the prompt turns
    running, then exits: other requests read before the end are never answered."""
    dies_on_big_frame: bool = False
    """The reader gives up on a line longer than 8 MB: the process exits."""
    cancels_early: bool = False
    """A `$/cancel_request` for an id not seen yet is remembered: the request sent later with
    that id is answered -32800."""
    answers_late_cancel: bool = False
    """A `$/cancel_request` for a request already read is answered (an error, `"id": null`)."""
    invalid_params_without_where: bool = False
    """Params refused by the models are answered -32602 "Invalid params", with no `data`."""
    ignores_cancel_request: bool = False
    """Not a bug (the schema: the receiver "MAY cancel"): `$/cancel_request` changes nothing, the
    turn runs on and is answered `end_turn`; `session/cancel` still ends it."""
    fast_answers: bool = False
    """Not a bug: every prompt is answered at once, its words in one chunk, then `end_turn`
    (what the official SDKs' example agents do); a cancel finds no turn running."""
    updates_unknown_session: bool = False
    """Each turn begins with one `session/update` for a session never created."""
    answers_prompt_twice: bool = False
    """The answer to `session/prompt` is written twice."""
    result_and_error: bool = False
    """The answer to `session/prompt` carries an `error` beside its `result`."""
    update_with_id: bool = False
    """Every `session/update` is sent with an id (the client's answers to them are dropped)."""
    chunk_without_type: bool = False
    """The `agent_message_chunk` content blocks lack their required `type`."""
    plan_without_capability: bool = False
    """Each turn begins with a `plan_update`, though the client never advertised `plan`."""
    logs_to_stdout: bool = False
    """A plain log line on stdout at the start and for each prompt."""
    answers_extension_methods: bool = False
    """Not a bug: every `_`-prefixed request the agent has no handler for is answered with the
    result `{}` (ACP: agents "should" answer an unknown extension method -32601, lower case)."""


BIG_LINE = 8 * 1024 * 1024
SLOW_NEW = 2.0
"""Longer than the turn of the suite's running prompt (20 words, 50 ms apart: 1 s)."""


def checked(params: Any, model: Any, bugs: Bugs) -> Any:
    try:
        return validator_for(model)(params)
    except ValidationError as error:
        if bugs.invalid_params_without_where:
            raise InvalidParams() from None
        raise InvalidParams.from_validation(error) from None


class Agent:
    def __init__(self, bugs: Bugs) -> None:
        self.bugs = bugs
        self.cancelled: dict[str, asyncio.Event] = {}
        self.connection: Connection | None = None
        self.late: set[asyncio.Future[None]] = set()
        self.turns = 0
        self.transport: Tapped | None = None

    def handlers(self) -> MethodHandlers:
        table = ExtensionsAnswered if self.bugs.answers_extension_methods else MethodHandlers
        return table(
            requests={
                "initialize": self.initialize,
                "session/new": self.session_new,
                "session/prompt": self.session_prompt,
            },
            notifications={"session/cancel": self.session_cancel},
        )

    async def initialize(self, params: Any, ctx: RequestContext) -> Any:
        checked(params, models.InitializeRequest, self.bugs)
        result: dict[str, Any] = {
            "protocolVersion": 1,
            "agentInfo": {"name": "broken-fixture", "version": "0"},
        }
        if self.bugs.advertises_unserved:
            result["agentCapabilities"] = {"sessionCapabilities": {"list": {}}}
        return result

    async def session_new(self, params: Any, ctx: RequestContext) -> Any:
        checked(params, models.NewSessionRequest, self.bugs)
        if self.bugs.drops_requests_at_eof:
            await asyncio.sleep(SLOW_NEW)
        session_id = f"session-{uuid.uuid4()}"
        self.cancelled[session_id] = asyncio.Event()
        return {"sessionId": session_id}

    async def session_prompt(self, params: Any, ctx: RequestContext) -> Any:
        request = checked(params, models.PromptRequest, self.bugs)
        session_id = request.session_id
        cancelled = self.cancelled.setdefault(session_id, asyncio.Event())
        cancelled.clear()
        words = " ".join(b.text for b in request.prompt if isinstance(b, models.ContentBlockText))
        if self.bugs.logs_to_stdout and self.transport is not None:
            self.transport.transport.write(b"broken-fixture: prompt received\n")
        if self.bugs.updates_unknown_session:
            await ctx.notify("session/update", update("session-never-created", "stray"))
        if self.bugs.plan_without_capability:
            plan = {"type": "markdown", "planId": "plan-1", "content": "1. echo the words"}
            await ctx.notify(
                "session/update",
                {"sessionId": session_id, "update": {"sessionUpdate": "plan_update", "plan": plan}},
            )
        self.turns += 1
        try:
            return await self.turn(session_id, words, cancelled, ctx)
        finally:
            self.turns -= 1

    async def turn(
        self, session_id: str, words: str, cancelled: asyncio.Event, ctx: RequestContext
    ) -> Any:
        if self.bugs.fast_answers:
            await ctx.notify("session/update", update(session_id, words))
            return {"stopReason": "end_turn"}
        for word in words.split():
            if cancelled.is_set() and not self.bugs.ignores_cancel:
                return {"stopReason": "cancelled"}
            try:  # a cancel may land in the write as well as in the pause
                await ctx.notify("session/update", update(session_id, word))
                await asyncio.sleep(WORD_PAUSE)
            except asyncio.CancelledError:
                if not (self.bugs.ignores_cancel or self.bugs.ignores_cancel_request):
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
        if self.bugs.update_after_answer:
            late = update(session_id, "late")
            asyncio.get_running_loop().call_later(WORD_PAUSE, self.late_update, late)
        if self.bugs.title_after_answer:
            for late in session_updates(session_id, words):
                asyncio.get_running_loop().call_later(WORD_PAUSE, self.late_update, late)
        return {"stopReason": "end_turn"}

    def late_update(self, params: dict[str, Any]) -> None:
        assert self.connection is not None
        sent = asyncio.ensure_future(self.connection.notify("session/update", params))
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


def session_updates(session_id: str, words: str) -> list[dict[str, Any]]:
    """A title made of the prompt's words, and the context window's use."""
    title = {"sessionUpdate": "session_info_update", "title": words[:40]}
    usage = {"sessionUpdate": "usage_update", "used": len(words.split()), "size": 1000}
    return [{"sessionId": session_id, "update": kind} for kind in (title, usage)]


def id_key(value: Any) -> str | None:
    """A request id as comparable text (an integer or a string; None for any other value)."""
    return json.dumps(value) if type(value) in (int, str) else None


class Tapped:
    """The stdio transport with the bugs that live below the dispatcher: reads are looked at
    line by line (a notification answered, a cancel remembered or answered, a request dropped
    for a cancel seen before it, a long line the end of the process; the end of input ends the
    process)."""

    def __init__(self, transport: PipeTransport, bugs: Bugs, agent: Agent) -> None:
        self.transport = transport
        self.bugs = bugs
        self.agent = agent
        self.pieces: list[bytes] = []
        self.size = 0
        self.seen: set[str] = set()
        self.cancelled: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    def deliver_to(self, sink: Any) -> bool:
        return False  # read through `read`, where the bugs are

    def write(self, data: bytes, *, batch: int = 0) -> None:
        """The agent's frames, through the bugs that change what it writes."""
        for frame in written(data, self.bugs):
            self.transport.write(frame, batch=batch)

    async def read(self) -> bytes:
        while not (read := await self.read_lines()) and self.pieces:
            pass  # every line of the read was the bugs' own: read on (b"" is the end)
        return read

    async def read_lines(self) -> bytes:
        while True:
            chunk = await self.transport.read()
            if not chunk or b"\n" in chunk:
                break
            # part of a line: held in pieces, joined once it ends (no copy per read)
            self.pieces.append(chunk)
            self.size += len(chunk)
            if self.bugs.dies_on_big_frame and self.size > BIG_LINE:
                os._exit(1)
        if not chunk:
            if self.bugs.drops_answers_at_eof:
                os._exit(0)
            if self.bugs.drops_requests_at_eof:
                await asyncio.sleep(0.05)  # the requests read have started
                while self.agent.turns:
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.05)  # the last turn's answer written
                os._exit(0)
            rest, self.pieces, self.size = b"".join(self.pieces), [], 0
            return rest if rest and self.keep(rest) else b""
        lines = b"".join([*self.pieces, chunk]).split(b"\n")
        last = lines.pop()
        self.pieces, self.size = [last], len(last)
        return b"".join(line + b"\n" for line in lines if self.keep(line))

    def keep(self, line: bytes) -> bool:
        """Whether the dispatcher reads `line` (the bugs answer some lines themselves)."""
        if self.bugs.dies_on_big_frame and len(line) > BIG_LINE:
            os._exit(1)
        if self.bugs.update_with_id and line.startswith(b'{"jsonrpc":"2.0","id":"update-'):
            return False  # the client's answer to an update sent with an id
        if not (self.bugs.answers_notifications or self.bugs.cancels_early) and not (
            self.bugs.answers_late_cancel
        ):
            return True
        try:
            message = json.loads(line)
        except ValueError:
            return True
        if not isinstance(message, dict) or "method" not in message:
            return True
        key = id_key(message.get("id"))
        params = message.get("params")
        if "id" not in message:
            if self.bugs.answers_notifications:
                self.transport.write(b'{"jsonrpc":"2.0","id":null,"result":null}\n')
            if message["method"] == "$/cancel_request" and isinstance(params, dict):
                named = id_key(params.get("requestId"))
                if self.bugs.answers_late_cancel and named is not None and named in self.seen:
                    error = {"code": -32600, "message": "that request is over"}
                    answer = {"jsonrpc": "2.0", "id": None, "error": error}
                    self.transport.write(json.dumps(answer).encode() + b"\n")
                if self.bugs.cancels_early and named is not None and named not in self.seen:
                    self.cancelled.add(named)
            return True
        if key is None:
            return True
        self.seen.add(key)
        if key in self.cancelled:
            error = {"code": -32800, "message": "Request cancelled"}
            answer = {"jsonrpc": "2.0", "id": message["id"], "error": error}
            self.transport.write(json.dumps(answer).encode() + b"\n")
            return False
        return True


class ExtensionsAnswered(MethodHandlers):
    """The handlers, with every unknown `_`-prefixed request answered `{}`."""

    async def handle_request(self, method: str, params: Any, context: RequestContext) -> Any:
        if method.startswith("_") and method not in self.requests:
            return {}
        return await super().handle_request(method, params, context)


WRITES_BUGS = ("answers_prompt_twice", "result_and_error", "update_with_id", "chunk_without_type")


def written(data: bytes, bugs: Bugs) -> list[bytes]:
    """The frames the agent writes for `data` (one frame and its newline) under `bugs`."""
    if not any(getattr(bugs, name) for name in WRITES_BUGS):
        return [data]
    frame = json.loads(data)
    result = frame.get("result")
    answers_turn = isinstance(result, dict) and "stopReason" in result
    if answers_turn and bugs.result_and_error:
        frame["error"] = {"code": -32603, "message": "Internal error"}
    params = frame.get("params")
    if frame.get("method") == "session/update" and isinstance(params, dict):
        if bugs.update_with_id:
            frame = {"jsonrpc": "2.0", "id": f"update-{uuid.uuid4()}", **frame}
        chunk = params.get("update", {})
        if bugs.chunk_without_type and chunk.get("sessionUpdate") == "agent_message_chunk":
            chunk.get("content", {}).pop("type", None)
    line = json.dumps(frame, separators=(",", ":")).encode() + b"\n"
    return [line, line] if answers_turn and bugs.answers_prompt_twice else [line]


async def main(bugs: Bugs) -> None:
    agent = Agent(bugs)
    transport = Tapped(await open_stdio(), bugs, agent)
    agent.transport = transport
    if bugs.logs_to_stdout:
        transport.transport.write(b"broken-fixture: starting\n")
    async with Connection(transport, agent.handlers()) as connection:
        agent.connection = connection
        await connection.wait_closed()


def serve(bugs: Bugs) -> None:
    run(main(bugs))
