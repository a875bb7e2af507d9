# Copied by acp-codegen from templates/python/conformance/client_permission.py. Do not edit here:
# edit the source, then run `make generate`.

"""Client cases on the permission a client gives or withholds (layer: case family, client side):
the option it selects is the one its flags say (`--permission allow|reject`); a request the agent
withdraws with `$/cancel_request` is answered with the `cancelled` outcome; and Ctrl-C
(`--sigint`) while a permission request is pending sends `session/cancel`, the request then
answered `cancelled` (ACP v2).

A client that answers a permission request at once (a policy, or no terminal to ask on) holds no
request to cancel: the cancel cases are skips for it, with the answer it gave. The quotes are
the edition's (`LifecycleEntry.said["cancel_outcome"]`, read from the IR): "The Client answers a
request the Agent cancels with `$/cancel_request` with this outcome." carries no keyword, so the
cases are informative.
"""

from __future__ import annotations

from typing import Any

from .cancel_request import cancel_method
from .cases import Case, Context, Outcome, Skip, describe, failed, passed, skipped
from .client_agent import (
    SESSION_ID,
    ClientRun,
    end_turn,
    exit_status,
    lifecycle,
    of,
    permission_params,
    prompted,
    state,
)
from .client_session import OWN_BEHAVIOUR
from .data import EditionData
from .peer import NoAnswer, is_notification, is_response
from .steps import params

METHOD = "session/request_permission"
HOLD = 0.5
"""Seconds a permission request must stay unanswered to count as held (asked of a user); the
second of the turn (the first may take what a first use takes)."""
CANCELLED = "cancelled"
"""The outcome of a request not approved, no option selected (RequestPermissionOutcome)."""


def cases(edition: EditionData) -> list[Case]:
    prompt = edition.prompt
    if prompt is None or edition.method(METHOD) is None:
        return []
    found = [
        Case(
            "client.permission.selects_as_its_flags_say",
            f"a {METHOD} is answered with the option kind the client's flags select "
            "(--permission allow|reject)",
            "informative",
            OWN_BEHAVIOUR,
            _as_told,
        )
    ]
    life = prompt.lifecycle if prompt.answer == "insertion" else None
    cancel = cancel_method(edition)
    if life is None or cancel is None:
        return found
    said = life.rule("cancel_outcome")
    found += [
        Case(
            "client.permission.withdrawn_request_answered_cancelled",
            f"a pending {METHOD} the agent withdraws with {cancel.name} is answered with the "
            f"{CANCELLED} outcome",
            said.level,
            said.quote,
            _withdrawn,
        ),
        Case(
            "client.cancel.sigint_cancels_the_pending_permission",
            f"Ctrl-C while a {METHOD} is pending sends {prompt.cancel}; the request is answered "
            f"{CANCELLED} (at once or on {cancel.name}), and the client exits 0 (--sigint)",
            said.level,
            said.quote,
            _sigint_while_asking,
            budget=6.0,
        ),
    ]
    return found


def _outcome(answer: dict[str, Any]) -> Any:
    result = answer.get("result")
    outcome = result.get("outcome") if type(result) is dict else None
    return outcome.get("outcome") if type(outcome) is dict else None


async def _as_told(ctx: Context) -> Outcome:
    run = of(ctx)
    if run.permission is None:
        return skipped("needs --permission allow|reject (what the client's flags make it answer)")
    request = await prompted(run)
    wire = permission_params(run)
    request_id = run.next_id()
    run.peer.request(request_id, METHOD, params(run, METHOD, wire))
    answer = await run.peer.answer(request_id, run.timeout, METHOD)
    end_turn(run, request)
    result = answer.get("result")
    outcome = result.get("outcome") if type(result) is dict else None
    chosen = outcome.get("optionId") if type(outcome) is dict else None
    kinds = {o["optionId"]: o["kind"] for o in wire["options"]}
    if not str(kinds.get(chosen, "")).startswith(run.permission):
        return failed(f"told to {run.permission} (--permission), it answered {describe(answer)}")
    return passed(f"selected {chosen!r} ({kinds[chosen]})")


async def _held(run: ClientRun) -> tuple[dict[str, Any], Any, int]:
    """The prompt inserted, `requires_action`, and a permission request the client holds: the
    prompt request, the permission request's id, and where it was sent. A skip when the client
    answers within `HOLD` seconds."""
    life = lifecycle(run)
    assert life is not None
    request = await prompted(run)
    state(run, life.requires_action)
    # A first request, answered however the client answers: what the client does once (a model
    # compiled, a module imported) does not make the second look held.
    warm_up = run.next_id()
    run.peer.request(warm_up, METHOD, params(run, METHOD, permission_params(run)))
    await run.peer.answer(warm_up, run.timeout, f"the first {METHOD}")
    request_id = f"conformance-permission-{run.next_id()}"
    at = len(run.peer.received)
    run.peer.request(request_id, METHOD, params(run, METHOD, permission_params(run)))
    try:
        answer = await run.peer.answer(request_id, HOLD, METHOD)
    except NoAnswer:
        return request, request_id, at
    end_turn(run, request)
    raise Skip(
        f"the client answered the {METHOD} at once ({describe(answer)}): no pending request to "
        "cancel"
    )


def _cancel_request(run: ClientRun, request_id: Any) -> None:
    method = cancel_method(run.edition)
    assert method is not None
    run.peer.notify(
        method.name, params(run, method.name, {"requestId": request_id}, "notification")
    )


async def _withdrawn(ctx: Context) -> Outcome:
    run = of(ctx)
    request, request_id, _ = await _held(run)
    _cancel_request(run, request_id)
    try:
        answer = await run.peer.answer(request_id, run.timeout, f"the withdrawn {METHOD}")
    finally:
        life = lifecycle(run)
        assert life is not None
        state(run, life.running)  # the agent's work goes on without the permission
        end_turn(run, request)
    if _outcome(answer) != CANCELLED:
        return failed(f"the withdrawn request was answered {describe(answer)}, not {CANCELLED}")
    return passed(f"answered {CANCELLED}")


async def _sigint_while_asking(ctx: Context) -> Outcome:
    run = of(ctx)
    if not run.sigint:
        return skipped("needs --sigint (the client cancels its turn on Ctrl-C)")
    prompt = run.edition.prompt
    assert prompt is not None
    request, request_id, at = await _held(run)
    run.client.sigint()

    try:
        cancel = await run.peer.wait_for(
            lambda f: is_notification(f, prompt.cancel), run.timeout, prompt.cancel, start=at
        )
    except NoAnswer as error:
        return failed(f"after Ctrl-C: {error}")
    params_sent = cancel.message.get("params") if cancel.message else None
    if type(params_sent) is not dict or params_sent.get("sessionId") != SESSION_ID:
        return failed(f"{prompt.cancel} for another session: {params_sent!r}")
    # "After sending `session/cancel`, the Client MAY also send it without waiting for
    # `$/cancel_request`": an answer already there counts.
    early = any(is_response(f, request_id) for f in run.peer.received[at:])
    # "After `session/cancel`, the Agent ... MUST cancel them with `$/cancel_request`."
    _cancel_request(run, request_id)
    try:
        answer = await run.peer.answer(request_id, run.timeout, f"the {METHOD}")
    finally:
        end_turn(run, request, prompt.cancelled)
    if _outcome(answer) != CANCELLED:
        return failed(f"the cancelled turn's {METHOD} was answered {describe(answer)}")
    code = await exit_status(run)
    if code != 0:
        return failed(f"exit status {code} after the cancelled turn")
    when = "without waiting for" if early else "on"
    return passed(f"{prompt.cancel}; the request answered {CANCELLED} {when} {method_name(run)}")


def method_name(run: ClientRun) -> str:
    method = cancel_method(run.edition)
    return method.name if method else "the cancel"
