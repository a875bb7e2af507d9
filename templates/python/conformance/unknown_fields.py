"""Members the agent does not know (layer: case family): `initialize`, `session/new` and a
prompt sent with a `_meta` object, or with a member no schema names, are answered as they are
without it, and the connection goes on.

`_meta` is in every params object of the schema, its keys the sender's ("Implementations MUST
NOT …"), so an agent refusing a request for what its `_meta` holds fails a MUST. A member the
schema does not name is a reading of the suite's own: no params object of the schema closes
its members (none says `additionalProperties: false`), so such a request still fits the schema
and a newer client may send it; that case is informative. That such a request is answered at
all (a result or an error, and the connection goes on) is JSON-RPC's MUST: an agent that exits
on it fails `unknown_fields.request_with_unknown_member_is_answered`, and the informative case is
then not judged.
"""

from __future__ import annotations

from typing import Any

from .behaviour import accepted, prompt_answer, said, unless_plain_session_fails
from .cases import (
    JSON_RPC,
    Case,
    Context,
    Failure,
    NotJudged,
    Outcome,
    describe,
    failed,
    passed,
)
from .data import EditionData, Quote
from .levels import level_of
from .peer import NoAnswer
from .steps import initialize_wire, params, probe

META = {"conformance.example/trace": {"run": "acp-conformance", "depth": [1, {"x": None}]}}
"""A `_meta` value no agent knows."""
UNKNOWN = "conformanceFutureField"
"""A member no params object of the schema names (not `_`-prefixed: a future field)."""
META_TEXT = {
    1: "The _meta property is reserved by ACP to allow clients and agents to attach additional "
    "metadata to their interactions. Implementations MUST NOT make assumptions about values at "
    "these keys.",
    2: "The _meta property is reserved by ACP to allow Clients and Agents to attach additional "
    "metadata to their interactions. Omitted and `null` are equivalent and mean no metadata. "
    "Implementations MUST NOT assign meaning to keys they do not recognize.",
}
TURN_WAIT = 10.0
REPLY = Quote(
    "When a rpc call is made, the Server MUST reply with a Response, except for in the case of "
    "Notifications.",
    f"{JSON_RPC} §4 (a request with a member the agent does not know is still a call)",
)


def cases(edition: EditionData) -> list[Case]:
    if edition.prompt is None or edition.protocol_version not in META_TEXT:
        return []
    meta = said(edition, "NewSessionRequest/properties/_meta", META_TEXT[edition.protocol_version])
    unknown = Quote(
        "A params object of the schema lists its members without closing them (no "
        "`additionalProperties: false`): a request with a member it does not name still fits "
        "the schema (the case's reading).",
        f"{edition.source}#/$defs/NewSessionRequest",
    )
    return [
        Case(
            "unknown_fields.meta_answered_as_without",
            "initialize, session/new and a prompt with a _meta the agent does not know are "
            "answered as without it",
            level_of(meta.text),
            meta,
            _answered({"_meta": META}),
            budget=TURN_WAIT,
        ),
        Case(
            "unknown_fields.request_with_unknown_member_is_answered",
            f"initialize and session/new with a member no schema names ({UNKNOWN}) are answered "
            "(a result or an error), and the connection still answers",
            level_of(REPLY.text),
            REPLY,
            _replied({UNKNOWN: {"since": "a future edition"}}),
        ),
        Case(
            "unknown_fields.unknown_member_answered_as_without",
            f"initialize, session/new and a prompt with a member no schema names ({UNKNOWN}) "
            "are answered as without it (informative: the suite's reading)",
            level_of(unknown.text),
            unknown,
            _answered({UNKNOWN: {"since": "a future edition"}}),
            budget=TURN_WAIT,
        ),
    ]


def _replied(extra: dict[str, Any]) -> Any:
    what = "with " + ", ".join(extra)

    async def check(ctx: Context) -> Outcome:
        method = ctx.edition.negotiation.method
        wire = initialize_wire(ctx.edition, ctx.models, ctx.edition.protocol_version)
        await ctx.call(method, params(ctx, method, {**wire, **extra}), what=f"{method} {what}")
        session = {"cwd": ctx.workdir, "mcpServers": [], **extra}
        await ctx.call(
            "session/new", params(ctx, "session/new", session), what=f"session/new {what}"
        )
        await probe(ctx, f"after requests {what}")
        return passed()

    return check


def _answered(extra: dict[str, Any]) -> Any:
    what = "with " + ", ".join(extra)

    async def check(ctx: Context) -> Outcome:
        try:
            return await _as_without(ctx, extra, what)
        except NoAnswer as error:
            if "_meta" in extra:
                raise
            # Answering at all is JSON-RPC's MUST, judged by its own case.
            raise NotJudged(
                f"{error} (unknown_fields.request_with_unknown_member_is_answered)"
            ) from None

    return check


async def _as_without(ctx: Context, extra: dict[str, Any], what: str) -> Outcome:
    method = ctx.edition.negotiation.method
    wire = initialize_wire(ctx.edition, ctx.models, ctx.edition.protocol_version)
    answer = await ctx.call(method, params(ctx, method, {**wire, **extra}), what=method)
    if type(answer.get("result")) is not dict:
        return failed(f"{method} {what} was answered with {describe(answer)}")
    session = {"cwd": ctx.workdir, "mcpServers": [], **extra}
    answer = await ctx.call("session/new", params(ctx, "session/new", session))
    created = answer.get("result")
    if type(created) is not dict or type(created.get("sessionId")) is not str:
        await unless_plain_session_fails(ctx)
        return failed(f"session/new {what} was answered with {describe(answer)}")
    text = {"type": "text", "text": "hello from the conformance suite", **extra}
    answer = await prompt_answer(ctx, created["sessionId"], [text], extra=extra, wait=TURN_WAIT)
    why = accepted(ctx, answer)
    if why is not None:
        raise Failure(f"the prompt {what} (in its params and its text block) was {why}")
    return passed()
