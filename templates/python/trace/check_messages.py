"""`trace check`'s rules of single messages (layer: judgement): the envelope (answers matched
to requests by their exact id, once; notifications never answered; never `result` and `error`
together; the agent's lines JSON-RPC messages; notifications without an id; a batch answered),
the schema (the negotiated edition's generated models, the first problem's JSON pointer), what
the other side did not advertise, and a permission's selected option among those offered.
`Judge` holds what they need of the conversation so far, never the frames.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..conformance.data import Level, Quote
from ..conformance.output_gates import Gate
from ..conformance.output_schema import check_message, id_key
from .check_rules import Rules, Side
from .frames import RecordedFrame

SHOWN = 120
PENDING_BATCHES = 1024
"""Batches waiting for their answer, at most: past that, the oldest is judged never answered."""
"""Characters of a frame a violation's message quotes."""
SCHEMA_CASES = {
    "initialize": "client.initialize.params_fit_the_schema",
    "session/new": "client.prompt.params_fit_the_schema",
    "session/prompt": "client.prompt.params_fit_the_schema",
    "session/close": "client.close.params_fit_the_schema",
}
"""The client's messages the suite's own schema cases judge; the rest:
client.output.messages_fit_the_schema."""
BATCH_CASES = (
    "envelope.empty_array_is_one_invalid_request_with_null_id",
    "envelope.batch_of_notifications_is_one_invalid_request_with_null_id",
    "envelope.batch_of_one_request_is_one_invalid_request_with_null_id",
)


@dataclass(frozen=True, slots=True)
class Violation:
    """One rule broken, seen at `frame` (an index into the recording's frames)."""

    case: str
    level: Level
    quote: Quote
    frame: int
    message: str
    side: Side = "agent"
    """The program that broke it."""


@dataclass(slots=True)
class Request:
    frame: int
    method: str
    params: Any
    answers: int = 0


@dataclass
class Judge:
    """The running judgement of one recording: what it needs of the frames so far, never the
    frames themselves (a recording is judged as it is read, in bounded memory)."""

    rules: Rules
    found: list[Violation] = field(default_factory=list)
    asked: dict[Side, dict[str, Request]] = field(
        default_factory=lambda: {"agent": {}, "client": {}}
    )
    """The requests each side sent (`id_key` of the id → the request)."""
    methods: dict[Side, dict[str, str]] = field(default_factory=lambda: {"agent": {}, "client": {}})
    """The same requests' methods (what the schema check reads)."""
    client_caps: dict[str, Any] = field(default_factory=dict)
    agent_result: dict[str, Any] | None = None
    last: dict[str, tuple[int, dict[str, Any] | None]] = field(default_factory=dict)
    """The last frame of each direction: its index and its message."""
    batches: deque[tuple[int, str, str]] = field(default_factory=deque)
    """The batches the client sent that nothing has answered yet, oldest first: each one's
    frame, the case it breaks when never answered, and how it is shown."""

    def report(self, case: str, index: int, message: str) -> None:
        rule = self.rules.get(case)
        if rule is None:  # the edition has no such case (a v2-only family under v1)
            return
        self.found.append(Violation(case, rule.level, rule.quote, index, message, rule.side))


def show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text[:SHOWN] + ("…" if len(text) > SHOWN else "")


def not_a_message(judge: Judge, index: int, frame: RecordedFrame, side: Side) -> None:
    value = frame.value if frame.raw is None else frame.raw
    if side == "agent":
        if frame.raw is None and _is_batch_of_messages(value):
            return
        judge.report(
            "output.stdout_lines_are_json_rpc_messages",
            index,
            f"a line that is no JSON-RPC message: {show(value)}",
        )
        return
    if frame.raw is None and type(value) is list:
        requests = [m for m in value if type(m) is dict and "id" in m]
        case = BATCH_CASES[0] if not value else BATCH_CASES[1] if not requests else BATCH_CASES[2]
        judge.batches.append((index, case, f"a batch of {len(value)}: {show(value)}"))
        if len(judge.batches) > PENDING_BATCHES:
            _never_answered(judge, *judge.batches.popleft())


def _is_batch_of_messages(value: Any) -> bool:
    return (
        type(value) is list
        and bool(value)
        and all(type(v) is dict and v.get("jsonrpc") == "2.0" for v in value)
    )


def batch_answered(judge: Judge) -> None:
    """An answer with a null id that no notification explains, or an array of answers: the
    answer of the oldest batch still waiting (the client may have written more lines since:
    the suite writes a probe right behind its batch)."""
    if judge.batches:
        judge.batches.popleft()


def batches_unanswered(judge: Judge) -> None:
    """At the end: a batch the client sent, which ACP does not have, is answered by one -32600
    with a null id (informative, the rule book envelope.json); one that got nothing breaks it."""
    while judge.batches:
        _never_answered(judge, *judge.batches.popleft())


def _never_answered(judge: Judge, index: int, case: str, shown: str) -> None:
    judge.report(case, index, f"{shown} was never answered")


def request_or_notification(
    judge: Judge, index: int, message: dict[str, Any], side: Side, update_gates: list[Gate]
) -> None:
    method: str = message["method"]
    data = judge.rules.data
    if "id" in message:
        only_notification = (
            data.method(method, "request") is None
            and data.method(method, "notification") is not None
        )
        if side == "agent" and only_notification:
            judge.report(
                "output.notifications_sent_without_an_id",
                index,
                f"the notification {method} was sent with an id: {show(message)}",
            )
        kept = _kept(method, message.get("params"))
        key = id_key(message["id"])
        judge.asked[side][key] = Request(index, method, kept)
        judge.methods[side][key] = method
    if method == data.negotiation.method and side == "client":
        params = message.get("params")
        if type(params) is dict:
            caps = params.get("clientCapabilities", params.get("capabilities"))
            judge.client_caps = caps if type(caps) is dict else {}
    _schema(judge, index, message, side)
    if side == "agent":
        _gated(judge, index, message, update_gates)
    else:
        _unadvertised(judge, index, method)


def _kept(method: str, params: Any) -> Any:
    """What a request's params are kept of until its answer: a permission request's whole (its
    options), else its session (a prompt's text is not held)."""
    if method == "session/request_permission" or type(params) is not dict:
        return params
    return {"sessionId": params["sessionId"]} if "sessionId" in params else None


def answer(judge: Judge, index: int, message: dict[str, Any], side: Side) -> Request | None:
    """An answer from `side`: matched to the other side's request by its exact id."""
    prefix = "" if side == "agent" else "client."
    if "result" in message and "error" in message:
        judge.report(
            f"{prefix}output.never_result_and_error",
            index,
            f"an answer with both result and error: {show(message)}",
        )
    other: Side = "client" if side == "agent" else "agent"
    request = judge.asked[other].get(id_key(message.get("id")))
    if request is None:
        _unmatched(judge, index, message, side)
        return None
    request.answers += 1
    if request.answers > 1:
        judge.report(
            f"{prefix}output.one_answer_per_request",
            index,
            f"{request.method} (frame {request.frame}) answered a second time: {show(message)}",
        )
        return None
    _schema(judge, index, message, side)
    if request.method == data_method(judge, "initialize") and side == "agent":
        result = message.get("result")
        judge.agent_result = result if type(result) is dict else None
    if request.method == "session/request_permission" and side == "client":
        _permission(judge, index, request, message)
    return request


def data_method(judge: Judge, name: str) -> str:
    return judge.rules.data.negotiation.method if name == "initialize" else name


def _unmatched(judge: Judge, index: int, message: dict[str, Any], side: Side) -> None:
    """An answer whose id no request of the other side had: to a notification (a null or
    absent id right after one), to a line whose id could not be read (null: allowed), or a
    wrong id."""
    answer_id = message.get("id")
    notification = _last_notification(judge, index, side)
    prefix = "" if side == "agent" else "client."
    if answer_id is None and notification is not None:
        at, method = notification
        own = f"{prefix}notifications.never_answered.{method}"
        case = (
            own
            if judge.rules.get(own)
            else (f"{prefix}notifications.never_answered._conformance/no_such_notification")
        )
        judge.report(case, index, f"the notification {method} (frame {at}) was answered")
        return
    if answer_id is None:
        # JSON-RPC 2.0 §5: a null id where the request's id could not be read (a batch's)
        batch_answered(judge)
        return
    judge.report(
        f"{prefix}output.answer_ids_are_request_ids",
        index,
        f"an answer with id {json.dumps(answer_id)}, which no request had: {show(message)}",
    )


def _last_notification(judge: Judge, index: int, side: Side) -> tuple[int, str] | None:
    """The other side's last frame before `index`, when it is a notification."""
    last = judge.last.get("sent" if side == "agent" else "received")
    if last is None:
        return None
    at, message = last
    if message is not None and type(message.get("method")) is str and "id" not in message:
        return at, message["method"]
    return None


def _schema(judge: Judge, index: int, message: dict[str, Any], side: Side) -> None:
    other: Side = "client" if side == "agent" else "agent"
    asked = judge.methods[other]
    models = judge.rules.edition.models
    problem = check_message(message, asked, judge.rules.data, models)
    if problem is None:
        return
    if side == "agent":
        case = "output.messages_fit_the_schema"
    else:
        method = message.get("method")
        if type(method) is not str:
            method = asked.get(id_key(message.get("id")), "")
        case = SCHEMA_CASES.get(method, "client.output.messages_fit_the_schema")
        if judge.rules.get(case) is None:
            case = "client.output.messages_fit_the_schema"
    judge.report(case, index, f"{problem.line()}")


def _path_value(root: Any, path: Sequence[str]) -> Any:
    for key in path:
        if type(root) is not dict:
            return None
        root = root.get(key)
    return root


def _gated(judge: Judge, index: int, message: dict[str, Any], update_gates: list[Gate]) -> None:
    """An agent's update or request behind a client capability the client did not offer."""
    method = message["method"]
    params = message.get("params")
    update = params.get("update") if type(params) is dict else None
    kind = update.get("sessionUpdate") if type(update) is dict else None
    for gate in update_gates:
        hit = (gate.update is not None and gate.update == kind) or method in gate.methods
        if hit and not _path_value(judge.client_caps, gate.capability.split(".")):
            what = f"a {kind} update" if gate.update else method
            judge.report(
                f"output.unadvertised.{gate.name}",
                index,
                f"{what} to a client that did not advertise {gate.capability}",
            )


def _unadvertised(judge: Judge, index: int, method: str) -> None:
    """A client's request for an agent method its `initialize` answer did not advertise."""
    capability = judge.rules.data.capability(method)
    if capability is None or judge.agent_result is None:
        return
    value = _path_value(judge.agent_result, capability.path)
    if value is None or value is False:
        judge.report(
            f"client.output.unadvertised.{method}",
            index,
            f"{method} to an agent that did not advertise {'.'.join(capability.path)}",
        )


def _permission(judge: Judge, index: int, request: Request, message: dict[str, Any]) -> None:
    """The option a client selected must be one the request offered."""
    result = message.get("result")
    outcome = result.get("outcome") if type(result) is dict else None
    if type(outcome) is not dict or outcome.get("outcome") != "selected":
        return
    options = request.params.get("options") if type(request.params) is dict else None
    offered = [o.get("optionId") for o in options or [] if type(o) is dict]
    chosen = outcome.get("optionId")
    if chosen not in offered:
        judge.report(
            "client.answers.session/request_permission",
            index,
            f"selected option {json.dumps(chosen)}, not one offered "
            f"({', '.join(json.dumps(o) for o in offered)}; request at frame {request.frame})",
        )
