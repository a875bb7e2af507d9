# Copied by acp-codegen from templates/python/conformance/client_requests.py. Do not edit here:
# edit the source, then run `make generate`.

"""Client cases on what the agent sends during a turn (layer: case family, client side): the
requests a client advertises are served with results its schema accepts, a permission request is
answered, every other request is answered (-32601 for a method the client does not have), ids
come back exactly as sent, and notifications are never answered.

Which client capability advertises which method is read from the schema's own words, as the
edition's models carry them: a capability field whose description names a client method ("Whether
the Client supports `fs/read_text_file` requests.", "Whether the Client support all `terminal/*`
methods."); its description is the case's quote. Advertising is the client's promise, so an
advertised method not served is a MUST failure (the suite's reading, as for agents).
"""

from __future__ import annotations

import asyncio
import fnmatch
import re
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..runtime.validators import validator_for
from .cancel_request import cancel_method
from .cases import JSON_RPC, Case, Context, Outcome, describe, error_code, failed, passed, skipped
from .client_agent import (
    SESSION_ID,
    ClientRun,
    ask,
    end_turn,
    lifecycle,
    of,
    permission_params,
    prompted,
    state,
    update,
)
from .data import EditionData, Quote
from .levels import level_of
from .methods import NOTIFICATION
from .peer import Frame
from .steps import capability, params

QUIET = 0.4
"""Seconds a notification is given to draw an answer it must never get."""
READ_FILE = "conformance-read.txt"
READ_TEXT = "first line read by the conformance suite\nsecond line\n"
WRITE_FILE = "conformance-written.txt"
WRITE_TEXT = "written by the conformance suite\n"
UNKNOWN_REQUESTS = ("_conformance/no_such_method", "conformance/no_such_method")
UNKNOWN_NOTIFICATION = "_conformance/no_such_notification"
NEVER_SENT = "conformance-never-sent"
"""The id a `$/cancel_request` names that no request of the suite's agent had."""
IDS: dict[str, Any] = {
    "string": "conformance-id-1",
    "numeric_string": "7",
    "large_integer": 2**53 + 1,
    "zero": 0,
    "negative": -1,
}
"""The ids the suite's agent uses for its requests, by case name: a client must answer each
exactly (a large integer is not rounded through a double, "7" is not 7)."""

ANSWERED = Quote(
    "When a rpc call is made, the Server MUST reply with a Response, except for in the case of "
    "Notifications.",
    f"{JSON_RPC} §4",
)
SAME_ID = Quote(
    "id: This member is REQUIRED. It MUST be the same as the value of the id member in the "
    "Request Object.",
    f"{JSON_RPC} §5",
)
Serve = Callable[[ClientRun], Awaitable[Outcome]]
METHOD = re.compile(r"`([a-z_]+/[a-z_*]+)`")


@dataclass(frozen=True, slots=True)
class ClientCapability:
    """A client capability (wire keys under `clientCapabilities`) and the methods it names."""

    path: tuple[str, ...]
    methods: tuple[str, ...]
    quote: Quote


def client_capabilities(edition: EditionData, models: ModuleType) -> list[ClientCapability]:
    """The capabilities of the edition's `ClientCapabilities` whose description names a client
    request (`terminal/*` names every `terminal/` request)."""
    requests = [m.name for m in edition.handled_by("client", "request")]
    found: list[ClientCapability] = []

    def walk(model: Any, path: tuple[str, ...]) -> None:
        for name, info in getattr(model, "model_fields", {}).items():
            wire = info.alias or name
            named = METHOD.findall(info.description or "")
            methods = tuple(m for g in named for m in requests if fnmatch.fnmatchcase(m, g))
            if methods:
                pointer = f"#/$defs/{model.__name__}/properties/{wire}"
                text = " ".join((info.description or "").split())
                found.append(
                    ClientCapability((*path, wire), methods, Quote(text, edition.source + pointer))
                )
            for inner in _models_in(info.annotation):
                walk(inner, (*path, wire))

    walk(getattr(models, "ClientCapabilities", None), ("clientCapabilities",))
    return found


def _models_in(annotation: Any) -> list[Any]:
    if hasattr(annotation, "model_fields"):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def cases(edition: EditionData, models: ModuleType) -> list[Case]:
    if edition.prompt is None:
        return []
    found: list[Case] = []
    served = {"fs/read_text_file": _serves_read, "fs/write_text_file": _serves_write}
    advertised: dict[str, ClientCapability] = {}
    for cap in client_capabilities(edition, models):
        where = ".".join(cap.path)
        for method in cap.methods:
            advertised[method] = cap
            if method in served:
                found.append(
                    Case(
                        f"client.serves.{method}",
                        f"advertised by {where}, {method} is served with a result its schema "
                        "accepts",
                        level_of(cap.quote.text),
                        cap.quote,
                        _served(cap, served[method]),
                        requires=(where,),
                    )
                )
    permission = "session/request_permission"
    if edition.method(permission) is not None:
        found.append(
            Case(
                f"client.answers.{permission}",
                f"{permission} is answered with a result its schema accepts (a selected option "
                "is one offered)",
                "MUST",
                ANSWERED,
                _permission,
            )
        )
    for entry in edition.handled_by("client", "request"):
        if entry.name == permission:
            continue
        found.append(
            Case(
                f"client.answers.{entry.name}",
                f"{entry.name}, unless advertised (then served: client.serves.*), is answered",
                "MUST",
                ANSWERED,
                _answered(entry.name, advertised.get(entry.name)),
            )
        )
    not_found = edition.error(-32601)
    not_found_quote = (
        not_found.quote if not_found else Quote("Method not found", f"{JSON_RPC} §5.1")
    )
    found.append(
        Case(
            "client.methods.unknown_method_not_found",
            "a request for a method the client does not have is answered -32601",
            level_of(not_found_quote.text),
            not_found_quote,
            _unknown_method,
        )
    )
    notifications = [edition.prompt.update, UNKNOWN_NOTIFICATION]
    protocol_cancel = cancel_method(edition)
    if protocol_cancel is not None:  # "Unknown, finished or malformed ids are ignored"
        notifications.append(protocol_cancel.name)
    for name in notifications:
        found.append(
            Case(
                f"client.notifications.never_answered.{name}",
                f"a {name} notification is never answered, and the client still answers after it",
                "MUST",
                NOTIFICATION,
                _never_answered(name),
            )
        )
    for kind, value in IDS.items():
        found.append(
            Case(
                f"client.ids.{kind}",
                f"a request with id {value!r} is answered with that id, of the same type",
                "MUST",
                SAME_ID,
                _same_id(value),
            )
        )
    return found


def _served(cap: ClientCapability, serve: Serve) -> Any:
    async def check(ctx: Context) -> Outcome:
        run = of(ctx)
        request = await prompted(run)
        initialize = run.first.message if run.first and run.first.message else {}
        init_params = initialize.get("params")
        where = ".".join(cap.path)
        value = capability(init_params if type(init_params) is dict else {}, cap.path)
        if value is not True and type(value) is not dict:
            end_turn(run, request)
            return skipped(f"the client does not advertise {where}")
        outcome = await serve(run)
        end_turn(run, request)
        return outcome

    return check


def _result_fits(run: ClientRun, method: str, answer: dict[str, Any]) -> str | None:
    """Why the answer is not a result the method's schema accepts, or None."""
    if "result" not in answer:
        return f"answered {describe(answer)}"
    entry = run.edition.method(method)
    assert entry is not None and entry.result is not None
    try:
        validator_for(getattr(run.models, entry.result))(answer["result"])
    except ValueError as error:
        return f"the result does not fit {entry.result}: {str(error).splitlines()[0]}"
    return None


async def _serves_read(run: ClientRun) -> Outcome:
    path = (run.folder / READ_FILE).resolve()
    path.write_text(READ_TEXT, encoding="utf-8")
    method = "fs/read_text_file"
    answer = await ask(run, method, {"sessionId": SESSION_ID, "path": str(path)})
    if (why := _result_fits(run, method, answer)) is not None:
        return failed(f"{method} of a file in the client's folder: {why}")
    content = answer["result"].get("content")
    if content != READ_TEXT:
        return failed(f"{method} answered content {content!r}, the file holds {READ_TEXT!r}")
    return passed()


async def _serves_write(run: ClientRun) -> Outcome:
    path = (run.folder / WRITE_FILE).resolve()
    method = "fs/write_text_file"
    wire = {"sessionId": SESSION_ID, "path": str(path), "content": WRITE_TEXT}
    answer = await ask(run, method, wire)
    if (why := _result_fits(run, method, answer)) is not None:
        return failed(f"{method} in the client's folder: {why}")
    written = path.read_text(encoding="utf-8") if path.exists() else None
    if written != WRITE_TEXT:
        return failed(f"{method} answered a result, but the file holds {written!r}")
    return passed()


async def _permission(ctx: Context) -> Outcome:
    run = of(ctx)
    request = await prompted(run)
    life = lifecycle(run)
    if life is not None:  # "The Agent SHOULD report `requires_action` when ... permissions"
        state(run, life.requires_action)
    method = "session/request_permission"
    wire = permission_params(run)
    answer = await ask(run, method, wire)
    if life is not None:  # "it MUST report `running` when progress resumes"
        state(run, life.running)
    end_turn(run, request)
    if (why := _result_fits(run, method, answer)) is not None:
        return failed(why)
    outcome = answer["result"].get("outcome", {})
    chosen = outcome.get("optionId") if type(outcome) is dict else None
    if chosen is not None and chosen not in {o["optionId"] for o in wire["options"]}:
        return failed(f"the client selected {chosen!r}, not an option offered")
    return passed(f"outcome {outcome}")


def _answered(method: str, cap: ClientCapability | None) -> Any:
    async def check(ctx: Context) -> Outcome:
        run = of(ctx)
        request = await prompted(run)
        initialize = run.first.message if run.first and run.first.message else {}
        init_params = initialize.get("params")
        if cap is not None:
            value = capability(init_params if type(init_params) is dict else {}, cap.path)
            if value is True or type(value) is dict:
                end_turn(run, request)
                return skipped(f"advertised by {'.'.join(cap.path)} (client.serves.* checks it)")
        request_id = run.next_id()
        run.peer.request(request_id, method, {"sessionId": SESSION_ID})
        answer = await run.peer.answer(request_id, run.timeout, method)
        end_turn(run, request)
        return passed(f"answered {describe(answer)}")

    return check


async def _unknown_method(ctx: Context) -> Outcome:
    run = of(ctx)
    request = await prompted(run)
    for name in UNKNOWN_REQUESTS:
        answer = await ask(run, name, {})
        if error_code(answer) != -32601:
            end_turn(run, request)
            return failed(f"{name} answered {describe(answer)}, not -32601")
    end_turn(run, request)
    return passed()


def _is_answer(frame: Frame) -> bool:
    message = frame.message
    return message is not None and "method" not in message


def _never_answered(name: str) -> Any:
    async def check(ctx: Context) -> Outcome:
        run = of(ctx)
        request = await prompted(run)
        start = len(run.peer.received)
        if name == UNKNOWN_NOTIFICATION:
            run.peer.notify(name, {"sessionId": SESSION_ID})
        elif name == getattr(cancel_method(run.edition), "name", None):
            # a `$/cancel_request` for a request the client never received
            run.peer.notify(name, params(run, name, {"requestId": NEVER_SENT}, "notification"))
        else:
            update(run, "a chunk that is never answered ")
        await asyncio.sleep(QUIET)
        answers = [f for f in run.peer.received[start:] if _is_answer(f)]
        if answers:
            end_turn(run, request)
            return failed(f"the {name} notification was answered: {answers[0].value}")
        probe = await ask(run, UNKNOWN_REQUESTS[0], {})
        end_turn(run, request)
        return passed(f"the request after it was answered ({describe(probe)})")

    return check


def _same_id(value: Any) -> Any:
    async def check(ctx: Context) -> Outcome:
        run = of(ctx)
        request = await prompted(run)
        answer = await ask(run, UNKNOWN_REQUESTS[0], {}, request_id=value)
        end_turn(run, request)
        return passed(f"answered {describe(answer)} with id {answer['id']!r}")

    return check
