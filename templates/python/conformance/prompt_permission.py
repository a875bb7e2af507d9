"""A v1 turn cancelled while it waits on a permission request (layer: case family): the suite,
as a client would, sends `session/cancel` and then answers the pending
`session/request_permission` with the `cancelled` outcome; the agent takes that answer and ends
the turn with the `cancelled` stop reason.

The cases run where the edition's prompt turn is answered at completion (v1); v2's permission
cases are the lifecycle's (`lifecycle_asks`). An agent is asked to ask with a prompt starting
`ask ` (what the starters of every target do); an agent that asks nothing for it makes the case a
skip, with the reason.
"""

from __future__ import annotations

from typing import Any

from .cases import Case, Context, Outcome, Skip, describe, failed, passed, skipped
from .data import EditionData, PromptEntry, Quote
from .levels import level_of
from .lifecycle_watch import ASK_PROMPT, PERMISSION_OUTCOME_CANCELLED, Held
from .peer import Frame, NoAnswer, is_response
from .steps import initialize, new_session, prompt_params

PERMISSION = "session/request_permission"
CANCELLED_TEXT = (
    "Upon receiving this notification, the Agent SHOULD: - Stop all language model requests as "
    "soon as possible - Abort all tool call invocations in progress - Send any pending "
    "`session/update` notifications - Respond to the original `session/prompt` request with the "
    "`cancelled` stop reason"
)
ASK_WAIT = 3.0
"""Seconds beyond the suite's timeout the agent gets to ask, once prompted to (a budget)."""


def cases(edition: EditionData) -> list[Case]:
    prompt = edition.prompt
    if prompt is None or prompt.answer != "completion" or edition.method(PERMISSION) is None:
        return []
    quote = Quote(
        CANCELLED_TEXT,
        f"{edition.source}#/$defs/ClientNotification/properties/params/anyOf/0/anyOf/0 "
        f"(the description of {prompt.cancel})",
    )
    return [
        Case(
            "prompt.cancel_with_permission_pending_ends_cancelled",
            f"{prompt.cancel} while the turn waits on {PERMISSION}, then that request answered "
            f"with the cancelled outcome: the turn ends with stopReason "
            f'"{prompt.cancelled}"',
            level_of(quote.text),
            quote,
            _cancelled_while_asking(prompt),
            budget=2 * ASK_WAIT,
        )
    ]


def _stop_reason(answer: dict[str, Any]) -> str | None:
    result = answer.get("result")
    reason = result.get("stopReason") if type(result) is dict else None
    return reason if type(reason) is str else None


def _cancelled_while_asking(prompt: PromptEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialize(ctx)
        session_id = await new_session(ctx)
        held = Held(ctx, {PERMISSION})
        start = len(ctx.peer.received)
        request_id = ctx.next_id()
        ctx.peer.request(request_id, prompt.method, prompt_params(ctx, session_id, ASK_PROMPT))

        def asked_or_answered(frame: Frame) -> bool:
            return held.is_request(frame) or is_response(frame, request_id)

        try:
            first = await ctx.peer.wait_for(
                asked_or_answered, ctx.timeout + ASK_WAIT, PERMISSION, start=start
            )
        except NoAnswer as error:
            raise Skip(f"the agent asked nothing for the prompt {ASK_PROMPT!r} ({error})") from None
        if not held.is_request(first):
            return skipped(f"the turn of the prompt {ASK_PROMPT!r} ended without asking")
        # "If the client cancels the prompt turn via `session/cancel`, it MUST respond to this
        # request with the `cancelled` outcome": the cancel first, then that answer.
        ctx.peer.notify(prompt.cancel, {"sessionId": session_id})
        held.answer(first, PERMISSION_OUTCOME_CANCELLED)
        answer = await ctx.peer.answer(
            request_id, ctx.timeout + ASK_WAIT, f"{prompt.method} after {prompt.cancel}"
        )
        reason = _stop_reason(answer)
        if reason != prompt.cancelled:
            shown = repr(reason) if reason is not None else describe(answer)
            return failed(
                f"the turn ended with stopReason {shown} after {prompt.cancel} and the "
                f"cancelled outcome"
            )
        return passed()

    return check
