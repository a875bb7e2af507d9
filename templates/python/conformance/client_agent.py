"""The scripted agent the client cases play (layer: cases): what a client case is given, and the
agent's steps: answer `initialize` and `session/new`, wait for the prompt, stream updates, ask
the client something, end the turn, see the client exit.

The suite's agent answers `initialize` with the edition's version and no optional capability,
`session/new` with a fresh session id, and any other request of the client it is not waiting for
with -32601 (an agent that serves nothing more). Every value it sends is checked against the
edition's models first (`steps.params`), so the suite never sends what the schema refuses.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runtime.validators import validator_for
from .cases import Context, Failure
from .client_wire import ClientProcess, RelayStream, gone_within
from .peer import Frame, NoAnswer
from .steps import params

SESSION_ID = "conformance-session-1"
LEFTOVER_WAIT = 5.0
"""Seconds the agent (the relay) may outlive its client."""
WORDS = ("conformance", "chunk", "one", "two", "three")
"""The words the suite's agent streams as `agent_message_chunk` updates."""


@dataclass(kw_only=True)
class ClientRun(Context):
    """A client case's context: the client's process, the relay's stream, the prompt text the
    command line was given, the client's folder, and whether `{prompt}` and `--sigint` apply."""

    client: ClientProcess
    stream: RelayStream
    prompt: str
    folder: Path
    has_prompt: bool
    sigint: bool
    seen: int = 0
    """Frames of `peer.received` the scripted agent has read."""
    first: Frame | None = field(default=None)
    """The first frame the client wrote."""


def of(ctx: Context) -> ClientRun:
    if not isinstance(ctx, ClientRun):
        raise TypeError("a client case runs on a ClientRun")
    return ctx


def _is_request(frame: Frame) -> bool:
    message = frame.message
    return message is not None and type(message.get("method")) is str and "id" in message


async def client_request(run: ClientRun, method: str) -> dict[str, Any]:
    """The client's next `method` request; other requests on the way are answered -32601."""
    while True:
        frame = await run.peer.wait_for(
            _is_request, run.timeout, f"the client's {method} request", start=run.seen
        )
        run.seen = run.peer.received.index(frame) + 1
        if run.first is None:
            run.first = frame
        message = frame.message
        assert message is not None
        if message["method"] == method:
            return message
        reply_error(run, message, -32601, "Method not found: the conformance agent")


def reply(run: ClientRun, request: dict[str, Any], result: Any) -> None:
    entry = run.edition.method(request["method"])
    if entry is not None and entry.result is not None:
        validator_for(getattr(run.models, entry.result))(result)  # the suite's own answer fits
    run.peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def reply_error(run: ClientRun, request: dict[str, Any], code: int, message: str) -> None:
    run.peer.send(
        {"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}}
    )


def initialize_result(run: ClientRun, version: int | None = None) -> dict[str, Any]:
    n = run.edition.negotiation
    result: dict[str, Any] = {n.field: run.edition.protocol_version if version is None else version}
    entry = run.edition.method(n.method)
    fields = getattr(getattr(run.models, entry.result or ""), "model_fields", {}) if entry else {}
    for name, info in fields.items():
        if (info.alias or name) in ("agentInfo", "info"):
            result[info.alias or name] = {"name": "acp-conformance-agent", "version": "1"}
    return result


async def handshake(run: ClientRun) -> tuple[dict[str, Any], dict[str, Any]]:
    """`initialize` and `session/new` answered: the two requests."""
    initialize = await client_request(run, run.edition.negotiation.method)
    reply(run, initialize, initialize_result(run))
    new = await client_request(run, "session/new")
    reply(run, new, {"sessionId": SESSION_ID})
    return initialize, new


async def prompted(run: ClientRun) -> dict[str, Any]:
    """The handshake, then the client's prompt request (not answered yet)."""
    await handshake(run)
    prompt = run.edition.prompt
    if prompt is None:
        raise Failure("the edition has no prompt turn")
    return await client_request(run, prompt.method)


def update(run: ClientRun, text: str) -> None:
    prompt = run.edition.prompt
    assert prompt is not None
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    wire = {"sessionId": SESSION_ID, "update": chunk}
    run.peer.notify(prompt.update, params(run, prompt.update, wire, "notification"))


async def ask(run: ClientRun, method: str, wire: Any, request_id: Any = None) -> dict[str, Any]:
    """Send the client a request (`wire` checked against the method's params when it is one of
    the edition's) and wait for its answer."""
    if request_id is None:
        request_id = run.next_id()
    if run.edition.method(method) is not None:
        wire = params(run, method, wire)
    run.peer.request(request_id, method, wire)
    return await run.peer.answer(request_id, run.timeout, f"answer to {method}")


def end_turn(run: ClientRun, request: dict[str, Any], stop: str | None = None) -> None:
    prompt = run.edition.prompt
    assert prompt is not None
    reply(run, request, {"stopReason": stop or prompt.end_turn})


async def turn(run: ClientRun) -> dict[str, Any]:
    """A whole turn: handshake, prompt, the words streamed, `end_turn`; the prompt request."""
    request = await prompted(run)
    for word in WORDS:
        update(run, word + " ")
    end_turn(run, request)
    return request


async def exit_status(run: ClientRun) -> int:
    """The client's exit status once the turn is over; a Failure when it does not exit."""
    code = await run.client.exit_within(run.timeout)
    if code is None:
        raise Failure(f"the client did not exit within {run.timeout:g} s of the turn's end")
    return code


async def agent_left_over(run: ClientRun) -> bool:
    """Whether the agent the client started (the relay) outlives it by `LEFTOVER_WAIT`."""
    return not await gone_within(run.stream.relay_pid, LEFTOVER_WAIT)


async def closed_by_client(run: ClientRun, timeout: float) -> bool:
    """Whether the client closes the agent's input (or exits) within `timeout` seconds."""
    with contextlib.suppress(NoAnswer):
        await run.peer.wait_for(lambda _: False, timeout, "the end of the client's output")
    return run.peer.ended or run.client.process.poll() is not None
