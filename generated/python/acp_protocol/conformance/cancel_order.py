# Copied by acp-codegen from templates/python/conformance/cancel_order.py. Do not edit here:
# edit the source, then run `make generate`.

"""`$/cancel_request` before and after its request (layer: case family): a cancel naming an id
not sent yet cancels nothing (the request sent next with that id is answered with its result),
and a cancel naming a request already answered is ignored (never answered; the connection
still answers). cancel_request.py has the cancel of a pending request and of an id never sent.

The schema's text: "Notification to cancel an ongoing request." A request not sent yet, or
already answered, is not ongoing: the suite's reading is that such a cancel changes nothing.
The request after the early cancel must be answered at all (JSON-RPC 2.0: MUST); that it is
answered with its result, not -32800, is the suite's reading of "ongoing" (informative). The
cases are shared (runner.py): each leaves the connection as it found it.
"""

from __future__ import annotations

from typing import Any

from .cancel_request import QUIET, cancel_method
from .cases import JSON_RPC, Case, Context, Outcome, describe, error_code, failed, passed
from .data import EditionData, Level, Quote
from .steps import initialized, params, probe


def _quote(edition: EditionData, method: str, extra: str) -> Quote:
    entry = edition.method(method, "notification")
    model = entry.params if entry is not None else method
    return Quote(
        f"Notification to cancel an ongoing request. {extra}",
        f"{edition.source}#/$defs/{model} (description); {JSON_RPC} §4",
    )


def cases(edition: EditionData) -> list[Case]:
    method = cancel_method(edition)
    if method is None:
        return []
    name = method.name
    early: list[tuple[str, Level, str, str]] = [
        (
            "cancel_request.before_its_request_answered",
            "MUST",
            f"{name} for an id, then a request with that id: the request is answered",
            "When a rpc call is made, the Server MUST reply with a Response",
        ),
        (
            "cancel_request.before_its_request_not_cancelled",
            "informative",
            f"{name} for an id, then a request with that id: answered with its result, not "
            "-32800 (the suite's reading: the request was not ongoing)",
            "(a request sent after the cancel was not ongoing when it came)",
        ),
    ]
    found = [
        Case(case_id, title, level, _quote(edition, name, extra), _before(name, level), shared=True)
        for case_id, level, title, extra in early
    ]
    found.append(
        Case(
            "cancel_request.after_its_answer_ignored",
            f"{name} for a request already answered is never answered; the connection still "
            "answers",
            "MUST",
            _quote(
                edition,
                name,
                "The Server MUST NOT reply to a Notification (JSON-RPC 2.0 §4.1)",
            ),
            _after(name),
            shared=True,
        )
    )
    return found


def _session_new(ctx: Context) -> Any:
    return params(ctx, "session/new", {"cwd": ctx.workdir, "mcpServers": []})


def _before(name: str, level: Level) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialized(ctx)
        request_id = f"cancelled-before-{ctx.next_id()}"
        ctx.peer.notify(name, {"requestId": request_id})
        ctx.peer.request(request_id, "session/new", _session_new(ctx))
        answer = await ctx.peer.answer(request_id, ctx.timeout, f"session/new after {name}")
        if level == "MUST" or "result" in answer:
            return passed(f"answered with {describe(answer)}")
        if error_code(answer) == -32800:
            return failed("answered -32800: the cancel sent before the request cancelled it")
        return failed(f"answered with {describe(answer)}, not its result")

    return check


def _after(name: str) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialized(ctx)
        request_id = f"cancelled-after-{ctx.next_id()}"
        ctx.peer.request(request_id, "session/new", _session_new(ctx))
        await ctx.peer.answer(request_id, ctx.timeout, "session/new")
        start = len(ctx.peer.received)
        ctx.peer.notify(name, {"requestId": request_id})
        await ctx.peer.quiet(QUIET)
        answers = [
            f
            for f in ctx.peer.received[start:]
            if f.message is not None and "method" not in f.message
        ]
        if answers:
            return failed(f"{name} after the answer was answered: {answers[0].value}")
        await probe(ctx, f"after {name} for an answered request")
        return passed()

    return check
