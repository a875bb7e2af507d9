"""What the ACP behaviour families share (layer: cases): quotes made from the edition's schema
pointers, the `initialize` result's capabilities read for either edition, a session opened with
extra params, a prompt sent with any content blocks and its answer, and the `session/update`s
of one session read between two frames.

The behaviour families (`sessions`, `content`, `mcp_servers`, `modes`, `auth`,
`unknown_fields`, `permission_cancel`) each skip, with the reason, what the agent does not
advertise. Their quotes are the schema's descriptions word for word (a test checks each against
`schema/`), and each case's level comes from the words of its quote alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cases import Case, Check, Context, Failure, NotJudged, Skip, describe
from .data import EditionData, Quote
from .levels import level_of
from .peer import Frame, is_response
from .steps import initialize, params, updates_of

UPDATE = "session/update"
"""The notification an agent reports a session's activity with (both editions)."""


def said(edition: EditionData, pointer: str, text: str) -> Quote:
    """The schema's own words: `text` (with its line breaks as spaces) said at `pointer` (a
    path under `#/$defs/`) of the edition's schema file."""
    return Quote(" ".join(text.split()), f"{edition.source}#/$defs/{pointer}")


def worded_case(
    case_id: str,
    title: str,
    quote: Quote,
    check: Check,
    *,
    reading: str | None = None,
    budget: float = 0.0,
) -> Case:
    """A case whose level is its quote's words (`level_of`); an informative one says so in its
    title, with why (`reading`: the suite's reading it rests on, else the quote's words)."""
    level = level_of(quote.text)
    if level == "informative":
        title += f" (informative: {reading or 'the quoted text has no MUST or SHOULD'})"
    return Case(case_id, title, level, quote, check, budget=budget)


CLIENT_REQUESTS = {
    "v1": {
        "AuthenticateRequest": 1,
        "LoadSessionRequest": 4,
        "ResumeSessionRequest": 7,
        "SetSessionModeRequest": 9,
    },
    "v1/unstable": {
        "AuthenticateRequest": 1,
        "LoadSessionRequest": 8,
        "ResumeSessionRequest": 17,
        "SetSessionModeRequest": 19,
    },
}
"""Where the schema describes a request as a whole: its entry in `ClientRequest`'s params (by
edition, by the params type that entry's title names)."""


def request_said(edition: EditionData, params_type: str, text: str) -> Quote:
    """The schema's description of the request whose params are `params_type`."""
    index = CLIENT_REQUESTS[edition.key][params_type]
    return said(edition, f"ClientRequest/properties/params/anyOf/0/anyOf/{index}", text)


def v1(edition: EditionData) -> bool:
    """Whether the edition answers a prompt at its completion (v1) rather than at insertion."""
    return edition.prompt is not None and edition.prompt.answer == "completion"


def agent_capabilities(edition: EditionData, result: dict[str, Any]) -> dict[str, Any]:
    """The agent's capabilities in an `initialize` result (v1 `agentCapabilities`, v2
    `capabilities`), `{}` when absent."""
    found = result.get("agentCapabilities" if v1(edition) else "capabilities")
    return found if type(found) is dict else {}


def at(value: Any, *path: str) -> Any:
    """The value at `path` (None when any step is missing)."""
    for key in path:
        if type(value) is not dict:
            return None
        value = value.get(key)
    return value


def supported(value: Any) -> bool:
    """A capability that says "supported": `true` (v1 booleans) or an object (v2 `{}`)."""
    return value is True or type(value) is dict


def prompt_capability(edition: EditionData, result: dict[str, Any], name: str) -> bool:
    """Whether the agent advertises the prompt capability `name` (image, audio,
    embeddedContext): v1 `promptCapabilities`, v2 `session.prompt`."""
    caps = agent_capabilities(edition, result)
    if v1(edition):
        return supported(at(caps, "promptCapabilities", name))
    return supported(at(caps, "session", "prompt", name))


async def open_session(
    ctx: Context, extra: dict[str, Any] | None = None, *, what: str = "session/new"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`initialize`, then `session/new` with the members of `extra` (over the defaults): the
    `initialize` result and the `session/new` result, or a Failure naming `what`."""
    result = await initialize(ctx)
    wire = {"cwd": ctx.workdir, "mcpServers": [], **(extra or {})}
    answer = await ctx.call("session/new", params(ctx, "session/new", wire), what=what)
    created = answer.get("result")
    if type(created) is not dict or type(created.get("sessionId")) is not str:
        if not extra:
            raise NotJudged(f"{what} was answered with {describe(answer)}")
        await unless_plain_session_fails(ctx)
        raise Failure(f"{what} was answered with {describe(answer)}")
    return result, created


async def unless_plain_session_fails(ctx: Context) -> None:
    """After a `session/new` with something added failed: `NotJudged` when a plain `session/new`
    (the suite's folder, no MCP server, nothing added) fails too, for then what was added is not
    what the agent refused."""
    wire = {"cwd": ctx.workdir, "mcpServers": []}
    answer = await ctx.call("session/new", params(ctx, "session/new", wire))
    created = answer.get("result")
    if type(created) is not dict or type(created.get("sessionId")) is not str:
        raise NotJudged(f"a plain session/new was answered with {describe(answer)} as well")


def prompt_wire(
    ctx: Context, session_id: str, blocks: list[dict[str, Any]], extra: dict[str, Any] | None
) -> Any:
    prompt = ctx.edition.prompt
    if prompt is None:
        raise Skip("the edition has no prompt turn")
    wire = {"sessionId": session_id, "prompt": blocks, **(extra or {})}
    return params(ctx, prompt.method, wire)


async def prompt_answer(
    ctx: Context,
    session_id: str,
    blocks: list[dict[str, Any]],
    *,
    extra: dict[str, Any] | None = None,
    wait: float | None = None,
) -> dict[str, Any]:
    """A prompt of `blocks` (with the members of `extra`) and its answer: in v1 at the end of
    its turn, in v2 at its insertion."""
    assert ctx.edition.prompt is not None
    method = ctx.edition.prompt.method
    request_id = ctx.next_id()
    ctx.peer.request(request_id, method, prompt_wire(ctx, session_id, blocks, extra))
    return await ctx.peer.answer(request_id, wait or ctx.timeout, method)


def accepted(ctx: Context, answer: dict[str, Any]) -> str | None:
    """Why a prompt's answer is not an acceptance (None when it is one): v1 a result with a
    `stopReason`, v2 a result with the inserted message's id."""
    result = answer.get("result")
    prompt = ctx.edition.prompt
    assert prompt is not None
    key = "stopReason" if prompt.lifecycle is None else prompt.lifecycle.message_id
    if type(result) is not dict or key not in result:
        return f"answered with {describe(answer)}"
    return None


def of_session(session_id: str) -> Callable[[Frame], bool]:
    """The `session/update`s of one session."""
    return updates_of(session_id, UPDATE)


def kind_of(frame: Frame) -> str | None:
    """The `sessionUpdate` tag of a `session/update` frame."""
    tag = at(frame.message, "params", "update", "sessionUpdate")
    return tag if type(tag) is str else None


async def call_seeing(
    ctx: Context, method: str, wire: dict[str, Any], session_id: str, wait: float | None = None
) -> tuple[dict[str, Any], list[Frame]]:
    """A request and its answer, with the `session/update`s of `session_id` the agent sent
    between the request and the answer."""
    request_id = ctx.next_id()
    start = len(ctx.peer.received)
    ctx.peer.request(request_id, method, params(ctx, method, wire))
    frame = await ctx.peer.wait_for(
        lambda f: is_response(f, request_id),
        wait or ctx.timeout,
        f"answer to {method}",
        start=start,
    )
    end = ctx.peer.received.index(frame, start)
    before = [f for f in ctx.peer.received[start:end] if of_session(session_id)(f)]
    assert frame.message is not None
    return frame.message, before
