"""Client cases on the prompt lifecycle answered at insertion (layer: case family, client side;
ACP v2): the prompt's answer (its `messageId`) does not end the turn, its `idle` state update
does; the client shows the idle update's stop reason; a client that closes its session sends a
`session/close` its schema accepts and treats a `-32002` answer as a successful close.

The quotes are the edition's own text (the models' docstrings, the schema's descriptions), the
levels their words: "does not indicate ... that the Agent has finished processing it" carries no
keyword (informative), "Clients SHOULD treat a `-32002` response as a successful close" does
(SHOULD). What a client prints is its own behaviour (informative, the starter client protocol).
An edition answering its prompt at completion (v1) has none of these cases.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from .cases import Case, Context, Outcome, Skip, describe, failed, passed
from .client_agent import (
    SESSION_ID,
    WORDS,
    ClientRun,
    client_request,
    closed_by_client,
    end_turn,
    exit_status,
    lifecycle,
    of,
    prompted,
    reply_error,
    update,
)
from .client_session import OWN_BEHAVIOUR, fits
from .data import EditionData, Quote
from .levels import SUITES_READING, level_of
from .peer import NoAnswer

ANSWER_WAIT = 1.5
"""Seconds the suite's agent works after answering the prompt, before its first word (longer
than a client lingering a second after what it took for the turn's end)."""
SHOWN_STOP = "max_tokens"
"""The stop reason of the idle update whose printing is checked (not the default `end_turn`)."""
NOT_FOUND = -32002
CLOSE_NEEDLE = f"`{NOT_FOUND}`"
"""The close request's sentence for clients names this error code."""


def sentence_of(models: ModuleType, model: str, needle: str, source: str) -> Quote | None:
    """The paragraph of `model`'s docstring (the schema's description) holding `needle`."""
    doc = getattr(getattr(models, model, None), "__doc__", "") or ""
    for paragraph in re.split(r"\n\s*\n", doc):
        if needle in paragraph:
            return Quote(" ".join(paragraph.split()), f"{source}#/$defs/{model}")
    return None


def cases(edition: EditionData, models: ModuleType) -> list[Case]:
    prompt = edition.prompt
    life = prompt.lifecycle if prompt is not None and prompt.answer == "insertion" else None
    if prompt is None or life is None:
        return []
    entry = edition.method(prompt.method)
    answered = sentence_of(
        models, entry.result if entry and entry.result else "", "finished", edition.source
    )
    found = []
    if answered is not None:
        found.append(
            Case(
                "client.lifecycle.turn_ends_on_idle_not_on_the_answer",
                f"answered with a {life.message_id}, the client waits for the work's "
                f"{life.idle} state update (it does not end its turn on the answer)",
                level_of(answered.text),
                answered,
                _waits_for_idle,
            )
        )
    found.append(
        Case(
            "client.lifecycle.shows_the_idle_stop_reason",
            f"the client prints the {life.stop_reason} of the {life.idle} update that ends the "
            "work, after its words, and exits 0",
            "informative",
            OWN_BEHAVIOUR,
            _shows_stop_reason,
        )
    )
    close = edition.method(life.close) if life.close else None
    said = sentence_of(models, close.params, CLOSE_NEEDLE, edition.source) if close else None
    if close is not None and said is not None:
        found += [
            Case(
                "client.close.params_fit_the_schema",
                f"a {close.name} the client sends fits its schema and names the session",
                "informative",
                Quote(said.text, f"{said.source} ({SUITES_READING}: no text says MUST of it)"),
                _close_fits,
            ),
            Case(
                "client.close.not_found_is_a_successful_close",
                f"a {close.name} answered {NOT_FOUND} is a successful close: the client ends as "
                "after one (exit 0)",
                level_of(said.text),
                said,
                _close_not_found,
            ),
        ]
    return found


async def _waits_for_idle(ctx: Context) -> Outcome:
    run = of(ctx)
    request = await prompted(run)  # answered with its messageId, echoed, `running`
    if await closed_by_client(run, ANSWER_WAIT):
        code = run.client.process.poll()
        how = f"exited ({code})" if code is not None else "closed the agent's input"
        return failed(f"answered with its messageId, the client {how} before the work's idle")
    for word in WORDS:
        update(run, word + " ")
    end_turn(run, request)
    code = await exit_status(run)
    return passed(f"it ended after the idle update (exit status {code})")


async def _shows_stop_reason(ctx: Context) -> Outcome:
    run = of(ctx)
    request = await prompted(run)
    for word in WORDS:
        update(run, word + " ")
    end_turn(run, request, SHOWN_STOP)
    code = await exit_status(run)
    out = run.client.output()
    last = out.rfind(WORDS[-1])
    if last < 0:
        return failed(f"the words are not printed: {out[-200:]!r}")
    if SHOWN_STOP not in out[last:]:
        return failed(f"the idle update's {SHOWN_STOP!r} is not printed after the words: {out!r}")
    if code != 0:
        return failed(f"exit status {code} after the turn ended {SHOWN_STOP}")
    return passed()


async def _closed(run: ClientRun) -> dict[str, Any]:
    """A whole turn, then the client's `session/close` request (a skip when the client ends
    without one)."""
    life = lifecycle(run)
    assert life is not None and life.close is not None
    request = await prompted(run)
    for word in WORDS:
        update(run, word + " ")
    end_turn(run, request)
    try:
        return await client_request(run, life.close)
    except NoAnswer:
        raise Skip(f"the client does not close its sessions (no {life.close})") from None


async def _close_fits(ctx: Context) -> Outcome:
    run = of(ctx)
    close = await _closed(run)
    life = lifecycle(run)
    assert life is not None and life.close is not None
    reply_error(run, close, NOT_FOUND, "Resource not found: the conformance agent")
    if (why := fits(run, life.close, close)) is not None:
        return failed(why)
    named = close["params"].get("sessionId")
    if named != SESSION_ID:
        return failed(f"it closes session {named!r}, session/new gave {SESSION_ID!r}")
    return passed()


async def _close_not_found(ctx: Context) -> Outcome:
    run = of(ctx)
    close = await _closed(run)
    reply_error(run, close, NOT_FOUND, "Resource not found: the conformance agent")
    code = await run.client.exit_within(run.timeout)
    if code is None:
        return failed(f"answered {NOT_FOUND}, the client did not exit")
    if code != 0:
        said = [line for line in run.client.errors().splitlines() if line.strip()]
        return failed(
            f"answered {describe({'error': {'code': NOT_FOUND}})}, the client exited {code}"
            + (f": {said[-1]!r}" if said else "")
        )
    return passed(f"answered {NOT_FOUND}, it exited 0")
