"""The v2 lifecycle's `session/close` cases (layer: case family, listed by `lifecycle`): closing
a session whose work runs reports the work's `idle` / `cancelled` before the close answer; after
that answer nothing more comes for the session; a prompt held behind the work is answered
`-32800`, or with its message id when it was inserted.

The close acts on work seen running (running.py); an idle with another stop reason is blamed
only when the agent had read the close before it wrote that idle, and is a skip otherwise.
"""

from __future__ import annotations

from .cases import (
    Check,
    Context,
    Failure,
    Outcome,
    describe,
    error_code,
    failed,
    passed,
    skipped,
)
from .lifecycle_watch import SHORT_PROMPT, Session
from .peer import Frame, is_response
from .running import busy_prompt, ended_as_sent, index_of, read_before, send_marker
from .steps import params

AFTER_CLOSE = 0.5
"""Seconds after the close answer during which nothing may come for the session."""
CLOSE_WAIT = 3.0
"""Seconds beyond the suite's timeout a close of a session whose work runs may take."""
REQUEST_CANCELLED = -32800


async def _working(ctx: Context) -> tuple[Session, Frame]:
    """A session whose work (the busy prompt's) is seen running: the session and the frame that
    showed it (a Skip when the work ended first)."""
    session = await Session.open(ctx)
    start = session.mark
    session.send_prompt(busy_prompt(ctx))
    close = session.lifecycle.close or "the close"
    return session, await session.seen_running(start, close)


async def _close(ctx: Context, session: Session) -> tuple[str, Frame]:
    """`session/close` sent, and right after it the marker (running.py): the marker's id, and
    the close's (successful) answer."""
    close = session.lifecycle.close
    if close is None:
        raise Failure("the edition has no close request")
    request_id = ctx.next_id()
    ctx.peer.request(request_id, close, params(ctx, close, {"sessionId": session.id}))
    marker = send_marker(ctx)
    answer = await ctx.peer.wait_for(
        lambda f: is_response(f, request_id), ctx.timeout + CLOSE_WAIT, f"answer to {close}"
    )
    assert answer.message is not None
    if "result" not in answer.message:
        raise Failure(f"{close} was answered with {describe(answer.message)}")
    return marker, answer


async def _idle_before_answer(ctx: Context) -> Outcome:
    session, running = await _working(ctx)
    marker, answer = await _close(ctx, session)
    received = ctx.peer.received
    # from the frame that showed the work running: an idle that came as the close was sent
    # ends the work too
    before = received[index_of(ctx, running) + 1 : index_of(ctx, answer)]
    life = session.lifecycle
    idles = [f for f in before if session.state_of(f) == life.idle]
    if not idles:
        return failed(f"no idle state_update before the {life.close} answer")
    reason = session.stop_reason(idles[-1])
    if reason == session.prompt.cancelled:
        return passed(f"idle {reason}, then the {life.close} answer")
    if not read_before(ctx, marker, idles[-1]):
        return skipped(ended_as_sent(str(life.close), f"idle with stopReason {reason!r}"))
    return failed(
        f"idle before the {life.close} answer with stopReason {reason!r} (the request sent "
        f"after the {life.close} was answered first)"
    )


async def _nothing_after_answer(ctx: Context) -> Outcome:
    session, _ = await _working(ctx)
    _, answer = await _close(ctx, session)
    later = await ctx.peer.quiet(AFTER_CLOSE)
    received = ctx.peer.received
    after = received[received.index(answer) + 1 :]

    def for_session(frame: Frame) -> bool:
        message = frame.message
        args = message.get("params") if message else None
        return (
            message is not None
            and "method" in message
            and type(args) is dict
            and args.get("sessionId") == session.id
        )

    late = [f for f in after if for_session(f)]
    if late:
        assert late[0].message is not None
        return failed(
            f"{len(late)} message(s) for the session after the {session.lifecycle.close} answer "
            f"(the first, {late[0].message.get('method')}, {(late[0].t - answer.t) * 1000:.0f} "
            "ms after)"
        )
    return passed(f"nothing for the session in the {AFTER_CLOSE:g} s after ({len(later)} frames)")


async def _held_prompt_answered(ctx: Context) -> Outcome:
    session, _ = await _working(ctx)
    held_at = session.mark
    held = session.send_prompt(SHORT_PROMPT)
    await _close(ctx, session)
    answer = await session.answer(held, ctx.timeout + CLOSE_WAIT)
    if error_code(answer) == REQUEST_CANCELLED:
        return passed(f"the held prompt answered {describe(answer)}")
    if "result" not in answer:
        return failed(f"the held prompt answered {describe(answer)}, neither -32800 nor a result")
    message_id = await session.inserted(held)
    # "If the message has already been inserted, the Agent MUST respond successfully with its
    # `messageId`": an inserted message is echoed.
    echoed = [f for f in ctx.peer.received[held_at:] if session.is_echo(message_id)(f)]
    if not echoed:
        return skipped(f"the prompt was answered {message_id!r} but its insertion is not seen")
    return passed(f"the prompt was inserted before the close: messageId {message_id!r}")


TABLE: list[tuple[str, str, str, Check, float]] = [
    (
        "close_order",
        "lifecycle.close_reports_idle_cancelled_before_its_answer",
        "session/close during the work: the idle state_update, stopReason cancelled, comes "
        "before the close answer",
        _idle_before_answer,
        CLOSE_WAIT,
    ),
    (
        "close_after",
        "lifecycle.close_sends_nothing_after_its_answer",
        "after the session/close answer, nothing more comes for the session",
        _nothing_after_answer,
        CLOSE_WAIT + AFTER_CLOSE,
    ),
    (
        "close_prompts",
        "lifecycle.close_answers_held_prompts",
        "a prompt held behind the work is answered -32800 by session/close (or with its "
        "messageId, once inserted)",
        _held_prompt_answered,
        CLOSE_WAIT,
    ),
]
"""(key of the rule quoted, id, title, check, budget), as `lifecycle.cases` lists them."""
