"""The prompt lifecycle answered at insertion (layer: case family; ACP v2): a prompt is answered
with the inserted message's id and that message is echoed; the work reports `running`, then
`idle` with a stop reason; every update of the work comes before its `idle`; `session/cancel`
ends the work `idle` / `cancelled`; a prompt sent while work runs gets its own message id. The
permission cases (`requires_action`, the cancelled outcome) are `lifecycle_asks`', the
`session/close` cases `lifecycle_close`'s; this module lists them all.

Every case quotes the schema sentence it checks (the edition's `LifecycleEntry.said`, read from
the IR) and takes its level from its words. An edition whose prompt is answered at completion
(v1) has the same cases, each skipped with the reason.
"""

from __future__ import annotations

from typing import Any

from . import lifecycle_asks, lifecycle_close, lifecycle_retry
from .cases import Case, Check, Context, Outcome, failed, passed, skipped
from .data import EditionData, Level, Quote
from .lifecycle_watch import MEDIUM_PROMPT, SHORT_PROMPT, Session
from .peer import NoAnswer
from .running import busy_prompt, ended_as_sent, index_of, read_before, send_marker

AFTER_IDLE = 0.5
"""Seconds after the `idle` update during which no update of the work may come."""
CANCEL_WAIT = 3.0
"""Seconds beyond the suite's timeout the cancel case may take (each of its waits is the suite's
timeout: the work seen running, then its `idle`)."""
TURN_WAIT = 5.0
"""Seconds beyond the suite's timeout a case waiting for a turn's `running`, then its `idle`,
may take (each wait is the suite's timeout)."""
HELD_WAIT = 6.0
"""Seconds beyond the suite's timeout a prompt sent while work runs may wait for the work ahead
of it."""


def cases(edition: EditionData) -> list[Case]:
    """(key of the rule quoted, id, title, check, budget) made into cases with the edition's
    quotes, or, where the edition's prompt is answered at completion, skipped."""
    table: list[tuple[str, str, str, Check, float]] = [
        (
            "insertion",
            "lifecycle.prompt_answered_with_a_message_id_and_echoed",
            "session/prompt is answered with the inserted message's id, echoed in a "
            "user_message update",
            _inserted,
            0.0,
        ),
        (
            "states",
            "lifecycle.turn_reports_running_then_idle",
            "a prompt's work reports a running state_update, then idle",
            _running_then_idle,
            TURN_WAIT,
        ),
        (
            "stop_reason",
            "lifecycle.idle_ends_the_work_with_a_stop_reason",
            "the idle state_update that ends a prompt's work carries a stopReason",
            _stop_reason,
            TURN_WAIT,
        ),
        (
            "states",
            "lifecycle.updates_before_idle",
            "every update of a prompt's work arrives before its idle state_update",
            _updates_before_idle,
            TURN_WAIT + AFTER_IDLE,
        ),
        (
            "cancelled",
            "lifecycle.cancel_ends_the_work_idle_cancelled",
            "session/cancel during the work ends it with an idle state_update, stopReason "
            '"cancelled"',
            _cancelled,
            CANCEL_WAIT,
        ),
        (
            "insertion",
            "lifecycle.held_prompt_answered_with_its_own_message_id",
            "a prompt sent while work runs (held or inserted) is answered with its own message "
            "id, echoed",
            _held,
            HELD_WAIT,
        ),
        *lifecycle_asks.TABLE,
        *lifecycle_close.TABLE,
        *lifecycle_retry.TABLE,
    ]
    prompt = edition.prompt
    lifecycle = prompt.lifecycle if prompt is not None else None
    found = []
    for key, case_id, title, check, budget in table:
        if lifecycle is None:
            level: Level = "informative"
            reason = (
                "the edition answers its prompt at completion, with a stop reason: the v2 "
                "lifecycle does not apply"
            )
            quote = (prompt.stop_reason_quote if prompt else None) or Quote(reason, edition.source)
            found.append(Case(case_id, title, level, quote, _not_applicable(reason)))
        else:
            said = lifecycle.rule(key)
            found.append(Case(case_id, title, said.level, said.quote, check, budget=budget))
    return found


def _not_applicable(reason: str) -> Check:
    async def check(ctx: Context) -> Outcome:
        return skipped(reason)

    return check


async def _inserted(ctx: Context) -> Outcome:
    session = await Session.open(ctx)
    start = session.mark
    message_id = await session.inserted(session.send_prompt(SHORT_PROMPT))
    # "The corresponding user-message session update carries this same identifier and may
    # arrive before or after this response."
    await session.wait(session.is_echo(message_id), f"user_message update {message_id!r}", start)
    return passed(f"messageId {message_id!r}, echoed")


async def _running_then_idle(ctx: Context) -> Outcome:
    session = await Session.open(ctx)
    start = session.mark
    session.send_prompt(SHORT_PROMPT)
    working, idle = await session.turn(start)
    return passed(f"{session.state_of(working)}, then idle {idle.t - working.t:.2f} s later")


async def _stop_reason(ctx: Context) -> Outcome:
    session = await Session.open(ctx)
    start = session.mark
    session.send_prompt(SHORT_PROMPT)
    try:
        _, idle = await session.turn(start)
    except NoAnswer as error:
        return skipped(f"no idle to read ({error}): lifecycle.turn_reports_running_then_idle")
    reason = session.stop_reason(idle)
    if type(reason) is not str:
        return failed(f"the idle update's {session.lifecycle.stop_reason} is {reason!r}")
    return passed(f"{session.lifecycle.stop_reason} {reason}")


async def _updates_before_idle(ctx: Context) -> Outcome:
    """The work's updates are the ones carrying a message id seen during the work (its streamed
    messages); an update of another kind after `idle` may be background activity ("Background
    activity can continue and emit other `session/update` notifications while `idle`")."""
    session = await Session.open(ctx)
    start = session.mark
    session.send_prompt(MEDIUM_PROMPT)
    try:
        _, idle = await session.turn(start)
    except NoAnswer as error:
        return skipped(f"no idle to order against ({error}): lifecycle.turn_reports_running…")
    await ctx.peer.quiet(AFTER_IDLE)
    received = ctx.peer.received
    at = received.index(idle)
    life = session.lifecycle

    def message_of(frame: Any) -> Any:
        update = session.update_of(frame) or {}
        if update.get(life.update_tag) in (life.update_value, life.user_message):
            return None
        return update.get("messageId")

    ids = {message_of(f) for f in received[start:at]} - {None}
    late = [f for f in received[at + 1 :] if message_of(f) in ids]
    if late:
        return failed(
            f"{len(late)} update(s) of the work came after its idle state_update (the first "
            f"{(late[0].t - idle.t) * 1000:.0f} ms after)"
        )
    return passed(f"every update of message(s) {', '.join(sorted(ids))} before idle")


async def _cancelled(ctx: Context) -> Outcome:
    session = await Session.open(ctx)
    cancel = session.prompt.cancel
    start = session.mark
    session.send_prompt(busy_prompt(ctx))
    running = await session.seen_running(start, cancel)
    sent = ctx.peer.now()
    ctx.peer.notify(cancel, {"sessionId": session.id})
    marker = send_marker(ctx)
    life = session.lifecycle
    # from the frame that showed the work running: an idle that came as the cancel was sent
    # ends the work too
    idle = await session.wait(
        session.is_state((life.idle,)),
        f"idle state_update after {cancel}",
        index_of(ctx, running) + 1,
    )
    reason = session.stop_reason(idle)
    if reason == session.prompt.cancelled:
        return passed(f"idle {reason} {idle.t - sent:.2f} s after {cancel}")
    if not read_before(ctx, marker, idle):
        return skipped(ended_as_sent(cancel, f"idle with stopReason {reason!r}"))
    return failed(
        f"idle after {cancel} with stopReason {reason!r} (the request sent after the cancel "
        "was answered first)"
    )


async def _held(ctx: Context) -> Outcome:
    session = await Session.open(ctx)
    start = session.mark
    first_request = session.send_prompt(MEDIUM_PROMPT)
    await session.wait(session.is_state((session.lifecycle.running,)), "running", start)
    first = await session.inserted(first_request)
    second_start = session.mark
    second_request = session.send_prompt(SHORT_PROMPT)
    held_wait = ctx.timeout + HELD_WAIT
    answer = await session.answer(second_request, held_wait)
    if "result" not in answer:
        return skipped(f"the agent refused a prompt while work ran ({answer.get('error')})")
    second = await session.inserted(second_request)
    if second == first:
        return failed(f"both prompts were answered with messageId {first!r}")
    await session.wait(
        session.is_echo(second), f"user_message update {second!r}", second_start, held_wait
    )
    return passed(f"messageId {second!r} (the first: {first!r}), echoed")
