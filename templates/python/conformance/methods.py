"""Method cases (layer: case family), one per method the agent side handles, from the edition's
method table: params the schema refuses are answered -32602, an unknown method -32601, and a
notification is never answered.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from ..runtime.validators import validator_for
from .cases import (
    JSON_RPC,
    Case,
    Context,
    Outcome,
    describe,
    error_code,
    failed,
    passed,
    skipped,
)
from .data import EditionData, MethodEntry, Quote
from .levels import level_of
from .peer import Frame
from .steps import initialize, probe

QUIET = 0.4
"""Seconds a notification is given to draw an answer it must never get."""
UNKNOWN_REQUESTS = ("_conformance/no_such_method", "conformance/no_such_method")
UNKNOWN_NOTIFICATION = "_conformance/no_such_notification"
WRONG_VALUES: tuple[Any, ...] = (12345, "conformance", [], True, {})

INVALID_PARAMS = Quote(
    "-32602 Invalid params: Invalid method parameter(s).", f"{JSON_RPC} §5.1 (error codes)"
)
NOTIFICATION = Quote(
    'A Notification is a Request object without an "id" member. [...] The Server MUST NOT '
    "reply to a Notification, including those that are within a batch request.",
    f"{JSON_RPC} §4.1",
)


def cases(edition: EditionData) -> list[Case]:
    found: list[Case] = []
    for method in edition.handled_by("agent", "request"):
        found.append(
            Case(
                f"params.invalid.{method.name}",
                f"{method.name} with params its schema ({method.params}) refuses is answered "
                "-32602",
                level_of(INVALID_PARAMS.text),
                INVALID_PARAMS,
                _invalid_params(method),
            )
        )
    not_found = edition.error(-32601)
    not_found_quote = (
        not_found.quote if not_found else Quote("Method not found", f"{JSON_RPC} §5.1")
    )
    found.append(
        Case(
            "methods.unknown_method_not_found",
            "a request for a method the agent does not have is answered -32601",
            level_of(not_found_quote.text),
            not_found_quote,
            _unknown_method,
        )
    )
    notifications = [m.name for m in edition.handled_by("agent", "notification")]
    for name in [*notifications, UNKNOWN_NOTIFICATION]:
        found.append(
            Case(
                f"notifications.never_answered.{name}",
                f"a {name} notification is never answered",
                "MUST",
                NOTIFICATION,
                _never_answered(name),
            )
        )
    return found


def refused_params(ctx: Context, method: MethodEntry) -> dict[str, Any] | None:
    """Params the method's schema refuses: `{}` when it has required fields, else one field of
    the wrong type (a field the schema drops when it is bad does not count); None when the
    models accept every such object."""
    model = getattr(ctx.models, method.params)
    validate = validator_for(model)
    fields = getattr(model, "model_fields", {})
    candidates: list[dict[str, Any]] = [{}]
    for name, info in fields.items():
        wire = info.alias or name
        if wire != "_meta":
            candidates += [{wire: value} for value in WRONG_VALUES]
    for candidate in candidates:
        try:
            validate(candidate)
        except ValueError:
            return candidate
    return None


def _invalid_params(method: MethodEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        bad = refused_params(ctx, method)
        if bad is None:
            return skipped(f"every params object of {method.params} the suite tries is valid")
        if method.name != ctx.edition.negotiation.method:
            await initialize(ctx)
        answer = await ctx.call(method.name, bad)
        code = error_code(answer)
        if code == -32602:
            return passed(f"params {bad} answered -32602")
        if code == -32601:
            return skipped(f"the agent does not serve {method.name} (-32601)")
        return failed(f"params {bad} (refused by {method.params}) answered {describe(answer)}")

    return check


async def _unknown_method(ctx: Context) -> Outcome:
    await initialize(ctx)
    for name in UNKNOWN_REQUESTS:
        answer = await ctx.call(name, {})
        if error_code(answer) != -32601:
            return failed(f"{name} answered {describe(answer)}, not -32601")
    return passed()


def _is_answer(frame: Frame) -> bool:
    message = frame.message
    return message is not None and "method" not in message


def _never_answered(name: str) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialize(ctx)
        # A session no one has, its own per case: over a URL, a session belongs to the first
        # connection that names it, and another connection naming it is refused (404).
        wire: dict[str, Any] = {"sessionId": f"conformance-no-such-session-{uuid.uuid4().hex[:12]}"}
        entry = ctx.edition.method(name, "notification")
        if entry is not None:
            try:
                validator_for(getattr(ctx.models, entry.params))(wire)
            except ValueError:
                wire = {}
        ctx.peer.notify(name, wire)
        answers = [f for f in await ctx.peer.quiet(QUIET) if _is_answer(f)]
        if answers:
            return failed(f"the {name} notification was answered: {answers[0].value}")
        await probe(ctx, f"after the {name} notification")
        await asyncio.sleep(0)
        return passed()

    return check
