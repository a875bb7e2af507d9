# Copied by acp-codegen from templates/python/conformance/client_agent.py. Do not edit here:
# edit the source, then run `make generate`.

"""The scripted agent the client cases play (layer: cases): what a client case is given, and the
agent's steps: answer `initialize` and `session/new`, wait for the prompt, stream updates, ask
the client something, end the turn, see the client exit.

The suite's agent answers `initialize` with the edition's version and no optional capability but
the one its prompt needs (v2: `capabilities.session`, "Supplying `{}` means the Agent supports
the baseline session methods"), `session/new` with a fresh session id, and any other request of
the client it is not waiting for with -32601 (an agent that serves nothing more). Every value it
sends is checked against the edition's models first (`steps.params`), so the suite never sends
what the schema refuses.

Where the edition answers its prompt at insertion (v2), the prompt is answered at once with a
`messageId`, echoed as a `user_message` update and followed by a `running` state update; the
turn's words are `agent_message_chunk`s of the agent's own message, and the turn ends with an
`idle` state update carrying the stop reason (v1: the prompt's answer carries it).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runtime.validators import validator_for
from .cases import Context, Failure
from .client_wire import ClientProcess, RelayStream, gone_within
from .data import LifecycleEntry
from .peer import Frame, NoAnswer
from .steps import params

SESSION_ID = "conformance-session-1"
MESSAGE_ID = "conformance-message-1"
"""The `messageId` the suite's agent answers a v2 prompt with (the inserted user message)."""
REPLY_ID = "conformance-reply-1"
"""The `messageId` of the agent message the suite's agent streams (v2)."""
LEFTOVER_WAIT = 5.0
"""Seconds the agent (the relay) may outlive its client."""
WORDS = ("conformance", "chunk", "one", "two", "three")
"""The words the suite's agent streams as `agent_message_chunk` updates."""


@dataclass(kw_only=True)
class ClientRun(Context):
    """A client case's context: the client's process, the relay's stream, the prompt text the
    command line was given, the client's folder, whether `{prompt}` and `--sigint` apply, and
    what the client answers a permission request with (`--permission`)."""

    client: ClientProcess
    stream: RelayStream
    prompt: str
    folder: Path
    has_prompt: bool
    sigint: bool
    permission: str | None = None
    """The option kind the client's flags make it select ("allow", "reject"; `--permission`)."""
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
    prompt = run.edition.prompt
    needed = [c for c in run.edition.capabilities if prompt and prompt.method in c.requires]
    if needed:  # the shortest: the baseline that advertises the prompt (v2 `capabilities.session`)
        cap = min(needed, key=lambda c: len(c.path))
        node = result
        for key in cap.path[:-1]:
            node = node.setdefault(key, {})
        node[cap.path[-1]] = cap.value
    return result


def lifecycle(run: ClientRun) -> LifecycleEntry | None:
    """The edition's prompt lifecycle when its prompt is answered at insertion (v2), else None."""
    prompt = run.edition.prompt
    return prompt.lifecycle if prompt is not None and prompt.answer == "insertion" else None


async def handshake(run: ClientRun) -> tuple[dict[str, Any], dict[str, Any]]:
    """`initialize` and `session/new` answered: the two requests."""
    initialize = await client_request(run, run.edition.negotiation.method)
    reply(run, initialize, initialize_result(run))
    new = await client_request(run, "session/new")
    reply(run, new, {"sessionId": SESSION_ID})
    return initialize, new


async def prompted(run: ClientRun) -> dict[str, Any]:
    """The handshake, then the client's prompt request: not answered yet (v1), or inserted (v2:
    answered with its `messageId`, echoed, the work `running`)."""
    await handshake(run)
    prompt = run.edition.prompt
    if prompt is None:
        raise Failure("the edition has no prompt turn")
    request = await client_request(run, prompt.method)
    if (life := lifecycle(run)) is not None:
        # "Identifies the user message inserted into the ACP conversation ... The corresponding
        # user-message session update carries this same identifier"
        reply(run, request, {life.message_id: MESSAGE_ID})
        blocks = (
            request.get("params", {}).get("prompt") if type(request.get("params")) is dict else []
        )
        echo = {life.update_tag: life.user_message, life.message_id: MESSAGE_ID}
        send_update(run, {**echo, "content": blocks} if type(blocks) is list and blocks else echo)
        state(run, life.running)
    return request


def send_update(run: ClientRun, value: dict[str, Any]) -> None:
    """One update of the session (checked against the edition's notification params)."""
    prompt = run.edition.prompt
    assert prompt is not None
    wire = {"sessionId": SESSION_ID, "update": value}
    run.peer.notify(prompt.update, params(run, prompt.update, wire, "notification"))


def state(run: ClientRun, value: str, stop: str | None = None) -> None:
    """A v2 `state_update` (`idle` with its stop reason when `stop` is given)."""
    life = lifecycle(run)
    assert life is not None
    update = {life.update_tag: life.update_value, life.state_tag: value}
    send_update(run, update if stop is None else {**update, life.stop_reason: stop})


def update(run: ClientRun, text: str) -> None:
    chunk: dict[str, Any] = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
    }
    if (life := lifecycle(run)) is not None:
        chunk[life.message_id] = REPLY_ID
    send_update(run, chunk)


async def ask(run: ClientRun, method: str, wire: Any, request_id: Any = None) -> dict[str, Any]:
    """Send the client a request (`wire` checked against the method's params when it is one of
    the edition's) and wait for its answer."""
    if request_id is None:
        request_id = run.next_id()
    if run.edition.method(method) is not None:
        wire = params(run, method, wire)
    run.peer.request(request_id, method, wire)
    return await run.peer.answer(request_id, run.timeout, method)


PERMISSION_OPTIONS = (
    {"optionId": "conformance-allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "conformance-reject", "name": "Reject", "kind": "reject_once"},
)


def permission_params(run: ClientRun) -> dict[str, Any]:
    """A `session/request_permission` of the edition's shape: an allow and a reject option,
    and what the request is about where the schema asks for it (v1 `toolCall`, v2 `title`)."""
    wire: dict[str, Any] = {"sessionId": SESSION_ID, "options": list(PERMISSION_OPTIONS)}
    entry = run.edition.method("session/request_permission")
    fields = getattr(getattr(run.models, entry.params), "model_fields", {}) if entry else {}
    wire_names = {info.alias or name for name, info in fields.items()}
    if "toolCall" in wire_names:
        wire["toolCall"] = {"toolCallId": "conformance-call-1", "title": "conformance check"}
    if "title" in wire_names:
        wire["title"] = "conformance check"
    return wire


def end_turn(run: ClientRun, request: dict[str, Any], stop: str | None = None) -> None:
    """The turn ends with `stop` (`end_turn` by default): the prompt's answer (v1), or the idle
    state update (v2: the prompt was answered at insertion)."""
    prompt = run.edition.prompt
    assert prompt is not None
    if (life := lifecycle(run)) is not None:
        state(run, life.idle, stop or prompt.end_turn)
    else:
        reply(run, request, {"stopReason": stop or prompt.end_turn})


async def turn(run: ClientRun) -> dict[str, Any]:
    """A whole turn: handshake, prompt, the words streamed, `end_turn`; the prompt request."""
    request = await prompted(run)
    for word in WORDS:
        update(run, word + " ")
    end_turn(run, request)
    return request


async def exit_status(run: ClientRun) -> int:
    """The client's exit status once the turn is over; a Failure when it does not exit. What
    it asks meanwhile is answered: its session closed (v2 `session/close`: "Closing a session
    that does not exist or is not active SHOULD succeed"), anything else -32601."""
    life = lifecycle(run)
    exited = asyncio.ensure_future(run.client.exit_within(run.timeout))
    try:
        while not exited.done():
            asked = asyncio.ensure_future(
                run.peer.wait_for(_is_request, run.timeout, "a request", start=run.seen)
            )
            await asyncio.wait({exited, asked}, return_when=asyncio.FIRST_COMPLETED)
            if not asked.done():
                asked.cancel()
                break
            if asked.exception() is not None:  # the client ended its output, or a timeout
                await asyncio.wait({exited})
                break
            frame = asked.result()
            run.seen = run.peer.received.index(frame) + 1
            message = frame.message
            assert message is not None
            if life is not None and message["method"] == life.close:
                reply(run, message, {})
            else:
                reply_error(run, message, -32601, "Method not found: the conformance agent")
        code = await exited
    finally:
        exited.cancel()
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
