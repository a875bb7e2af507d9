"""`$/cancel_request` cases (layer: case family): a pending request it names is answered (its
result or -32800), and one naming an unknown id is ignored (never answered, and the connection
still answers).

The schema lets the receiver ignore the cancel ("MAY cancel") and asks only for an answer ("MUST
send one of these responses"): `pending_prompt_answered` (MUST) waits for the answer as long as
the turn may run (the suite's timeout and `TURN`); how soon it comes after the cancel is no
text's, and no case judges it (a time limit would be the suite's own reading, and a race).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .cases import Case, Context, Outcome, describe, error_code, failed, passed, skipped
from .data import EditionData, MethodEntry, Quote
from .levels import level_of
from .peer import NoAnswer, is_notification, is_response
from .running import busy_prompt, seen_running
from .steps import initialize, new_session, probe, prompt_params

TURN = 60.0
"""Seconds the busy prompt's turn may go on after the cancel while it still makes progress (an
update at least every `--timeout`): a receiver may ignore `$/cancel_request` ("MAY cancel") and
answer when the turn ends; a turn still streaming past this is a skip, never a failure."""
QUIET = 0.4
UNKNOWN_ID = 987654321


def _quote(edition: EditionData, method: str) -> Quote:
    return Quote(
        "Upon receiving this notification, the receiver: 1. MAY cancel the corresponding request "
        "activity and all nested activities 2. MAY send any pending notifications. 3. MUST send "
        "one of these responses for the original request: Valid response with appropriate data "
        "(partial results or cancellation marker), or Error response with code -32800 (Request "
        "Cancelled)",
        f"{edition.source}: the description of {method} (protocol level)",
    )


def cancel_method(edition: EditionData) -> MethodEntry | None:
    """The protocol-level cancel notification (`$/cancel_request`), if the edition has one."""
    return next(
        (m for m in edition.methods if m.side == "protocol" and m.kind == "notification"), None
    )


def cases(edition: EditionData) -> list[Case]:
    method = cancel_method(edition)
    if method is None:
        return []
    quote = _quote(edition, method.name)
    found = [
        Case(
            "cancel_request.unknown_id_ignored",
            f"{method.name} naming an id never sent is ignored; the connection still answers",
            "MUST",
            quote,
            _unknown(method.name),
        )
    ]
    if edition.prompt is not None:
        found.insert(
            0,
            Case(
                "cancel_request.pending_prompt_answered",
                f"{edition.prompt.method} cancelled by {method.name} is answered (its result or "
                "-32800)",
                level_of(quote.text),
                quote,
                _pending(method.name),
                budget=TURN,
            ),
        )
    return found


def _pending(name: str) -> Any:
    """The prompt's answer after the cancel, within the suite's timeout and the turn's length."""

    async def check(ctx: Context) -> Outcome:
        prompt = ctx.edition.prompt
        assert prompt is not None
        await initialize(ctx)
        session_id = await new_session(ctx)
        request_id = ctx.next_id()
        text = busy_prompt(ctx)
        ctx.peer.request(request_id, prompt.method, prompt_params(ctx, session_id, text))
        if prompt.lifecycle is not None:
            # Answered at insertion (v2), the prompt is no longer pending once its work runs:
            # a second prompt sent meanwhile is (when the agent holds it until the work ends).
            await ctx.peer.answer(request_id, ctx.timeout, prompt.method)
            request_id = ctx.next_id()
            text = "held behind the work"
            ctx.peer.request(request_id, prompt.method, prompt_params(ctx, session_id, text))
        await seen_running(
            ctx,
            lambda f: is_notification(f, prompt.update),
            lambda f: is_response(f, request_id),
            0,
            name,
        )
        ctx.peer.notify(name, {"requestId": request_id})
        answer = await _answer_while_progressing(ctx, request_id, f"{prompt.method} after {name}")
        if answer is None:
            return skipped(
                f"the turn still streamed updates {TURN:g} s after {name}: the receiver may go "
                'on ("MAY cancel"), and the case waits no longer (a shorter --busy-prompt)'
            )
        code = error_code(answer)
        if "result" in answer or code == -32800:
            return passed(f"answered with {describe(answer)}")
        return failed(f"answered with {describe(answer)}, neither a result nor -32800")

    return check


async def _answer_while_progressing(
    ctx: Context, request_id: int, what: str
) -> dict[str, Any] | None:
    """The answer to `request_id`, waited for `--timeout` at a time for as long as the program
    keeps writing (at most `TURN` s); NoAnswer when it goes quiet unanswered, None when it still
    writes after `TURN` s."""
    loop = asyncio.get_running_loop()
    until = loop.time() + TURN
    while True:
        seen = len(ctx.peer.received)
        try:
            return await ctx.peer.answer(request_id, ctx.timeout, what)
        except NoAnswer:
            if len(ctx.peer.received) == seen or ctx.peer.ended:
                raise
            if loop.time() >= until:
                return None


def _unknown(name: str) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialize(ctx)
        ctx.peer.notify(name, {"requestId": UNKNOWN_ID})
        answers = [
            f for f in await ctx.peer.quiet(QUIET) if f.message and "method" not in f.message
        ]
        if answers:
            return failed(f"{name} for an unknown id was answered: {answers[0].value}")
        await probe(ctx, f"after {name} for an unknown id")
        return passed()

    return check
