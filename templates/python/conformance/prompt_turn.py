"""The prompt turn answered at completion (layer: case family; ACP v1): a turn ends with its
answer and a stop reason, every `session/update` of the turn comes before that answer,
`session/cancel` during a turn ends it `cancelled`, and a prompt still pending when the client
closes its end is answered.

The cancel and the end of input act on a turn seen running (running.py): the cancel case sends
the busy prompt, and blames a stop reason other than `cancelled` only when the agent had read
the cancel before it answered; a turn that ended first makes it a skip, with the reason.

The cases run where the edition's prompt turn is answered at completion; v2's lifecycle
(answered at insertion, state updates) is a later family.
"""

from __future__ import annotations

from typing import Any

from .cases import JSON_RPC, Case, Context, Failure, Outcome, describe, failed, passed, skipped
from .data import EditionData, PromptEntry, Quote
from .levels import level_of
from .peer import is_response
from .running import busy_prompt, ended_as_sent, read_before, seen_running, send_marker
from .steps import (
    initialize,
    new_session,
    prompt_params,
    running_prompt,
    turn_updates_of,
    updates_of,
)

AFTER_ANSWER = 0.5
"""Seconds after the answer during which no update of the turn may come (a quiet window: it can
miss a late update, never invent one)."""
CANCEL_WAIT = 3.0
"""Seconds beyond the suite's timeout the cancel case may take (its waits are each the suite's
timeout: the turn seen running, then its answer)."""

ORDER = Quote(
    "The answer to session/prompt ends the turn: every session/update of the turn is sent "
    "before it (the case's rule; the schema answers a prompt with its stop reason, "
    '"Indicates why the agent stopped processing the turn").',
    "ACP v1 prompt turn (protocol/v1/prompt-turn)",
)
EOF_ANSWER = Quote(
    "When a rpc call is made, the Server MUST reply with a Response, except for in the case of "
    "Notifications.",
    f"{JSON_RPC} §4 (a request read before the client closed its end)",
)


def cases(edition: EditionData) -> list[Case]:
    prompt = edition.prompt
    if prompt is None or prompt.answer != "completion":
        return []
    turn = prompt.stop_reason_quote or Quote(prompt.method, edition.source)
    return [
        Case(
            "prompt.turn_ends_with_a_stop_reason",
            f"{prompt.method} is answered with a stopReason the schema names",
            level_of(turn.text),
            turn,
            _turn(prompt),
        ),
        Case(
            "prompt.updates_before_the_answer",
            f"every {prompt.update} of a turn arrives before the {prompt.method} answer",
            level_of(ORDER.text),
            ORDER,
            _ordered(prompt),
        ),
        Case(
            "prompt.cancel_answers_cancelled",
            f'{prompt.cancel} during a turn ends it with stopReason "{prompt.cancelled}"',
            prompt.level,
            prompt.cancelled_quote or Quote(prompt.cancelled, edition.source),
            _cancelled(prompt),
            budget=CANCEL_WAIT,
        ),
        Case(
            "eof.pending_prompt_answered",
            f"a {prompt.method} read before the client closed its end is still answered",
            level_of(EOF_ANSWER.text),
            EOF_ANSWER,
            _answered_after_eof(prompt),
        ),
    ]


def _stop_reason(prompt: PromptEntry, answer: dict[str, Any]) -> str:
    result = answer.get("result")
    reason = result.get("stopReason") if type(result) is dict else None
    if type(reason) is not str:
        raise Failure(f"{prompt.method} was answered with {describe(answer)}")
    return reason


async def _start(ctx: Context, prompt: PromptEntry, text: str) -> tuple[str, int]:
    await initialize(ctx)
    session_id = await new_session(ctx)
    request_id = ctx.next_id()
    ctx.peer.request(request_id, prompt.method, prompt_params(ctx, session_id, text))
    return session_id, request_id


def _turn(prompt: PromptEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        _, request_id = await _start(ctx, prompt, "hello from the conformance suite")
        answer = await ctx.peer.answer(request_id, ctx.timeout, prompt.method)
        reason = _stop_reason(prompt, answer)
        if prompt.stop_reasons and reason not in prompt.stop_reasons:
            return failed(f"stopReason {reason!r} is none of {', '.join(prompt.stop_reasons)}")
        return passed(f"stopReason {reason}")

    return check


def _ordered(prompt: PromptEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        session_id, request_id = await _start(ctx, prompt, "one two three four five six")
        start = len(ctx.peer.received)
        answer_frame = await ctx.peer.wait_for(
            lambda f: is_response(f, request_id), ctx.timeout, f"answer to {prompt.method}"
        )
        await ctx.peer.quiet(AFTER_ANSWER)
        index = ctx.peer.received.index(answer_frame)
        # "every session/update of the turn": the turn's own work (a title, the context
        # window's use, the commands are the session's, sent when the agent has them)
        of_turn = turn_updates_of(session_id, prompt.update)
        before = [f for f in ctx.peer.received[start:index] if of_turn(f)]
        late = [f for f in ctx.peer.received[index + 1 :] if of_turn(f)]
        if late:
            after = late[0].t - answer_frame.t
            return failed(
                f"{len(late)} {prompt.update} of the turn came after its answer "
                f"(the first {after * 1000:.0f} ms after)"
            )
        return passed(f"{len(before)} updates, all before the answer")

    return check


def _cancelled(prompt: PromptEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        session_id, request_id = await _start(ctx, prompt, busy_prompt(ctx))
        answered = _answer_to(request_id)
        what = prompt.cancel
        await seen_running(ctx, updates_of(session_id, prompt.update), answered, 0, what)
        ctx.peer.notify(prompt.cancel, {"sessionId": session_id})
        marker = send_marker(ctx)
        answer = await ctx.peer.wait_for(answered, ctx.timeout, f"answer to {prompt.method}")
        assert answer.message is not None
        reason = _stop_reason(prompt, answer.message)
        if reason == prompt.cancelled:
            return passed()
        if not read_before(ctx, marker, answer):
            return skipped(ended_as_sent(what, f"stopReason {reason!r}"))
        return failed(
            f"answered stopReason {reason!r} after reading {what} (the request sent after it "
            "was answered first)"
        )

    return check


def _answer_to(request_id: int) -> Any:
    return lambda frame: is_response(frame, request_id)


def _answered_after_eof(prompt: PromptEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        session_id, request_id = await _start(ctx, prompt, running_prompt())
        of_turn = updates_of(session_id, prompt.update)
        await seen_running(ctx, of_turn, _answer_to(request_id), 0, "the end of input")
        ctx.peer.close_input()
        answer = await ctx.peer.answer(request_id, ctx.timeout, f"{prompt.method} after EOF")
        return passed(f"answered with {describe(answer)}")

    return check
