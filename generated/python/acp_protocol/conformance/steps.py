# Copied by acp-codegen from templates/python/conformance/steps.py. Do not edit here:
# edit the source, then run `make generate`.

"""Steps the agent cases share (layer: cases): params checked against the edition's models,
`initialize`, a new session, a prompt, and the probe that shows the connection still answers.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..runtime.validators import validator_for
from .cases import Context, Failure, NotJudged, Skip, describe
from .data import EditionData
from .first_answer import first_answer
from .peer import Frame, is_notification

PROBE_METHOD = "_conformance/probe"
"""An extension method no agent needs to serve: answered at all (a result or an error), it shows
the connection still reads and answers (its id is a string no case uses)."""
RUNNING_PROMPT_WORDS = 20
LONG_PROMPT_WORDS = 120
"""Words of the prompt a turn is cancelled in: the starters stream a long prompt's words 50 ms
apart (6 s); an agent that finishes first makes the cancel case a skip."""


def params(ctx: Context, method: str, wire: dict[str, Any], kind: str = "request") -> Any:
    """`wire` as the method's params, validated by the edition's model (so the suite never sends
    what the schema refuses) and written back as JSON."""
    entry = ctx.edition.method(method, kind)
    if entry is None:
        raise Skip(f"the edition has no {kind} {method}")
    try:
        value = validator_for(getattr(ctx.models, entry.params))(wire)
    except ValueError as error:
        first = str(error).splitlines()[0]
        raise Failure(
            f"the suite's own {method} params do not fit {entry.params}: {first}"
        ) from None
    return value.to_wire() if hasattr(value, "to_wire") else wire


CLIENT_INFO = {"name": "acp-conformance", "version": "1"}
"""Who the suite says it is, in the `initialize` field for it (v1 `clientInfo`, v2 `info`)."""


def initialize_wire(edition: EditionData, models: ModuleType, version: int) -> dict[str, Any]:
    """`initialize` params asking `version`, with the client's name where the schema has a field
    for it."""
    n = edition.negotiation
    wire: dict[str, Any] = {n.field: version}
    entry = edition.method(n.method)
    fields = getattr(getattr(models, entry.params), "model_fields", {}) if entry else {}
    for name, info in fields.items():
        if (info.alias or name) in ("clientInfo", "info"):
            wire[info.alias or name] = CLIENT_INFO
    return wire


def initialize_params(ctx: Context, version: int | None = None) -> Any:
    asked = ctx.edition.protocol_version if version is None else version
    wire = initialize_wire(ctx.edition, ctx.models, asked)
    return params(ctx, ctx.edition.negotiation.method, wire)


async def initialize(ctx: Context, version: int | None = None) -> dict[str, Any]:
    """`initialize` with the edition's version (or `version`): the result; `NotJudged` when it
    is answered with an error (a failure of the `negotiation.*` cases only), `NeverAnswered`
    (the run stops) when the program's first request gets no answer with its id."""
    method = ctx.edition.negotiation.method
    wire = initialize_params(ctx, version)
    if any(frame.dir == "sent" for frame in ctx.peer.transcript):
        answer = await ctx.call(method, wire)
    else:
        answer = await first_answer(ctx, method, wire)
    result = answer.get("result")
    if type(result) is not dict:
        raise NotJudged(f"initialize was answered with {describe(answer)}", ("negotiation",))
    return result


async def initialized(ctx: Context) -> dict[str, Any]:
    """The program initialized once (shared cases: the first case on a program asks)."""
    if ctx.initialized is None:
        ctx.initialized = await initialize(ctx)
    return ctx.initialized


def capability(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at `path` in an `initialize` result (None when absent)."""
    value: Any = result
    for key in path:
        if type(value) is not dict:
            return None
        value = value.get(key)
    return value


def advertises(result: dict[str, Any], path: tuple[str, ...], value: Any) -> bool:
    """Whether the capability at `path` says "supported": `true` for a boolean capability, an
    object (`{}` or with members) for an object capability."""
    found = capability(result, path)
    if type(value) is bool:
        return found is True
    return type(found) is dict


async def new_session(ctx: Context) -> str:
    """A new session in the suite's folder: its id, or a Failure."""
    wire = {"cwd": ctx.workdir, "mcpServers": []}
    answer = await ctx.call("session/new", params(ctx, "session/new", wire))
    result = answer.get("result")
    session_id = result.get("sessionId") if type(result) is dict else None
    if type(session_id) is not str:
        raise NotJudged(f"session/new was answered with {describe(answer)}")
    return session_id


def prompt_params(ctx: Context, session_id: str, text: str) -> Any:
    prompt = ctx.edition.prompt
    if prompt is None:
        raise Skip("the edition has no prompt turn")
    block = {"type": "text", "text": text}
    return params(ctx, prompt.method, {"sessionId": session_id, "prompt": [block]})


def long_prompt() -> str:
    return " ".join(f"word{n}" for n in range(LONG_PROMPT_WORDS))


def running_prompt() -> str:
    """A prompt whose turn is still running a moment after it is sent (the starters stream its
    words 50 ms apart: 1 s), for the cases that end the input under a pending turn."""
    return " ".join(f"word{n}" for n in range(RUNNING_PROMPT_WORDS))


async def probe(ctx: Context, what: str) -> None:
    """The connection still answers: any answer with the probe's id passes (a result or an
    error: ACP only says agents "should" answer an unknown `_` method -32601)."""
    probe_id = f"probe-{ctx.next_id()}"
    ctx.peer.request(probe_id, PROBE_METHOD)
    await ctx.peer.answer(probe_id, ctx.timeout, f"the probe request sent {what}")


TURN_KINDS = frozenset(
    {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"}
)
"""The updates that are a turn's own work ("every session/update of the turn"). The others are
the session's, sent when the agent has them: `available_commands_update`, modes, `usage_update`,
`session_info_update` ("Agents send this notification to update session information like
title or custom metadata"). `acp_protocol.trace` reads the same set."""


def turn_updates_of(session_id: str, update: str) -> Callable[[Frame], bool]:
    """The `update` notifications of one session that are its turn's own work (`TURN_KINDS`)."""
    of_session = updates_of(session_id, update)

    def matches(frame: Frame) -> bool:
        if not of_session(frame):
            return False
        params = frame.message.get("params") if frame.message else None
        kind = params.get("update") if type(params) is dict else None
        return type(kind) is dict and kind.get("sessionUpdate") in TURN_KINDS

    return matches


def updates_of(session_id: str, update: str) -> Callable[[Frame], bool]:
    """The `update` notifications (`session/update`) of one session."""

    def matches(frame: Frame) -> bool:
        params = frame.message.get("params") if frame.message else None
        return (
            is_notification(frame, update)
            and type(params) is dict
            and params.get("sessionId") == session_id
        )

    return matches
