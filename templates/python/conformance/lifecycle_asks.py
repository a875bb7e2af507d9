"""The v2 lifecycle's permission cases (layer: case family, listed by `lifecycle`): work blocked
on a permission request reports `requires_action`; after a `cancelled` outcome it reports
`running` or `idle`; `session/cancel` while the request is pending cancels it with
`$/cancel_request`.

An agent is asked to ask with a prompt starting `ask ` (what the starters of every target do);
an agent that asks nothing for it makes these cases skips, with the reason.
"""

from __future__ import annotations

from .cancel_request import cancel_method
from .cases import Check, Context, Outcome, Skip, failed, passed, skipped
from .lifecycle_watch import ASK_PROMPT, PERMISSION_OUTCOME_CANCELLED, Held, Session
from .peer import Frame, NoAnswer

ASK_WAIT = 3.0
"""Seconds beyond the suite's timeout the agent gets to ask, once prompted to (a budget: the
waits themselves are the suite's timeout, which a loaded machine may need whole)."""
CANCEL_WAIT = 3.0
"""Seconds beyond the suite's timeout a cancel may take to reach the permission request."""


async def _asking(ctx: Context) -> tuple[Session, Held, Frame, int]:
    """A session whose work waits on a permission request the suite holds: the session, the
    holder, the request, and the index where the prompt was sent."""
    session = await Session.open(ctx)
    held = Held(ctx, session.lifecycle.user_action)
    start = session.mark
    session.send_prompt(ASK_PROMPT)
    life = session.lifecycle

    def asked_or_idle(frame: Frame) -> bool:
        return held.is_request(frame) or session.state_of(frame) == life.idle

    try:
        first = await session.wait(asked_or_idle, "a permission request", start)
    except NoAnswer as error:
        raise Skip(f"the agent asked nothing for the prompt {ASK_PROMPT!r} ({error})") from None
    if not held.is_request(first):
        raise Skip(f"the agent asked nothing for the prompt {ASK_PROMPT!r}: its work ended")
    return session, held, first, start


async def _requires_action(ctx: Context) -> Outcome:
    session, held, request, start = await _asking(ctx)
    life = session.lifecycle
    try:
        blocked = await session.wait(
            session.is_state((life.requires_action,)),
            f"{life.requires_action} state_update",
            start,
        )
    except NoAnswer as error:
        held.answer(request, PERMISSION_OUTCOME_CANCELLED)
        return failed(f"the work waits on {request.message and request.message['method']}: {error}")
    held.answer(request, PERMISSION_OUTCOME_CANCELLED)
    return passed(
        f"{life.requires_action} {(blocked.t - request.t) * 1000:+.0f} ms from the request"
    )


async def _resumes_or_ends(ctx: Context) -> Outcome:
    session, held, request, start = await _asking(ctx)
    life = session.lifecycle
    try:
        await session.wait(session.is_state((life.requires_action,)), life.requires_action, start)
    except NoAnswer:
        held.answer(request, PERMISSION_OUTCOME_CANCELLED)
        return skipped(
            f"the agent reported no {life.requires_action} "
            "(lifecycle.permission_reports_requires_action)"
        )
    answered_at = session.mark
    held.answer(request, PERMISSION_OUTCOME_CANCELLED)
    after = await session.wait(
        session.is_state((life.running, life.idle, life.requires_action)),
        f"{life.running} or {life.idle} after the cancelled outcome",
        answered_at,
    )
    state = session.state_of(after)
    if state == life.requires_action:
        return failed(f"{life.requires_action} again after the only request was answered")
    if state == life.running:
        await session.wait(session.is_state((life.idle,)), life.idle, answered_at)
    return passed(f"{state} after the cancelled outcome")


async def _cancel_cancels_the_request(ctx: Context) -> Outcome:
    method = cancel_method(ctx.edition)
    if method is None:
        return skipped("the edition has no protocol-level cancel")
    session, held, request, _ = await _asking(ctx)
    cancel_at = session.mark
    ctx.peer.notify(session.prompt.cancel, {"sessionId": session.id})
    try:
        await session.wait(
            held.is_cancel_of(request, method.name),
            f"{method.name} for the pending permission request",
            cancel_at,
        )
    finally:
        held.answer(request, PERMISSION_OUTCOME_CANCELLED)
    life = session.lifecycle
    idle = await session.wait(session.is_state((life.idle,)), life.idle, cancel_at)
    return passed(f"{method.name} sent; answered cancelled; idle {session.stop_reason(idle)}")


TABLE: list[tuple[str, str, str, Check, float]] = [
    (
        "requires_action",
        "lifecycle.permission_reports_requires_action",
        "work waiting on a permission request reports a requires_action state_update",
        _requires_action,
        ASK_WAIT,
    ),
    (
        "resumes",
        "lifecycle.cancelled_permission_outcome_resumes_or_ends",
        "after requires_action, a cancelled permission outcome is followed by running or idle",
        _resumes_or_ends,
        ASK_WAIT,
    ),
    (
        "cancel_outcome",
        "lifecycle.cancel_while_asking_cancels_the_permission_request",
        "session/cancel while a permission request is pending cancels it with $/cancel_request",
        _cancel_cancels_the_request,
        ASK_WAIT + CANCEL_WAIT,
    ),
]
"""(key of the rule quoted, id, title, check, budget), as `lifecycle.cases` lists them."""
