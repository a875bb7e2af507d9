"""Everything the agent sends, checked (layer: case family `output`): over one conversation
(`output_talk`: `initialize` advertising no gated client capability, `session/new`, a prompt
turn, then quiet), each case judges one rule of what the agent wrote:

- every line on its stdout is a JSON-RPC message;
- one answer per request; never `result` and `error` together;
- notifications are sent without an id;
- updates only for sessions the agent created;
- every message fits the negotiated edition's schema (`output_schema`: the first problem's JSON
  pointer and the schema's description there);
- nothing the schema gates behind a client capability the client did not advertise
  (`output_gates`: `plan_update` in v1, `fs/*`, `terminal/*`, elicitation).

Each case's level comes from the words of its quote.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .cases import JSON_RPC, Case, Context, Outcome, failed, passed
from .data import EditionData, Level, Quote
from .levels import SUITES_READING, level_of
from .output_gates import Gate, gates
from .output_schema import check_message, id_key
from .output_talk import Conversation, conversation
from .peer import Frame

TRANSPORTS = Quote(
    "The agent **MUST NOT** write anything to its `stdout` that is not a valid ACP message.",
    "ACP transports, stdio (agentclientprotocol.com/protocol/transports; not in schema/)",
)
BOTH = Quote(
    "Either the result member or error member MUST be included, but both members MUST NOT be "
    "included.",
    f"{JSON_RPC} §5",
)
ONE_ANSWER = Quote(
    "When a rpc call is made, the Server MUST reply with a Response, except for in the case of "
    "Notifications.",
    f'{JSON_RPC} §5 ({SUITES_READING}: "a Response" is one, a second is no answer to anything)',
)
_PEERS_OWN = re.compile(r"^\((?:read failed: .*|a line of \d+ bytes, over the suite's limit)\)$")
"""The lines the peer records itself (not the program's): a failed read, an over-long line."""
SHOWN = 160
"""Characters of a frame a reason quotes."""

Judge = Callable[[Conversation, EditionData], Outcome]


def cases(edition: EditionData) -> list[Case]:
    prompt = edition.prompt
    if prompt is None:
        return []
    known = _session_quote(edition)
    found = [
        _case(
            "output.stdout_lines_are_json_rpc_messages",
            "every line the agent writes on stdout is a JSON-RPC message (no log lines)",
            TRANSPORTS,
            _lines,
        ),
        _case(
            "output.one_answer_per_request",
            f"each request is answered once ({prompt.method} not answered twice; "
            f"{SUITES_READING})",
            ONE_ANSWER,
            _one_answer,
            "informative",
        ),
        _case(
            "output.never_result_and_error",
            "no answer carries both `result` and `error`",
            BOTH,
            _both,
        ),
        _case(
            "output.notifications_sent_without_an_id",
            f"{prompt.update} and the edition's other notifications are sent without an id "
            "(with one it is a request the schema does not have: not a valid ACP message)",
            TRANSPORTS,
            _notifications,
        ),
        _case(
            "output.updates_only_for_its_sessions",
            f"every {prompt.update} names a session the agent created",
            known,
            _sessions,
        ),
        _case(
            "output.messages_fit_the_schema",
            "every result, request and notification the agent sends fits the edition's schema "
            "(one the schema refuses is not a valid ACP message)",
            TRANSPORTS,
            _schema,
        ),
    ]
    return found + [_gate_case(gate) for gate in _edition_gates(edition)]


def _models(edition: EditionData) -> ModuleType:
    package = __name__.rsplit(".", 2)[0]
    return importlib.import_module(f"{package}.{edition.key.replace('/', '.')}.models")


def _edition_gates(edition: EditionData) -> list[Gate]:
    return gates(edition, _models(edition))


def _case(case_id: str, title: str, quote: Quote, judge: Judge, level: Level | None = None) -> Case:
    async def check(ctx: Context) -> Outcome:
        return judge(await conversation(ctx), ctx.edition)

    said = level_of(quote.text) if level is None else level
    return Case(case_id, title, said, quote, check, budget=_BUDGET)


_BUDGET = 6.0
"""Seconds beyond the timeout: the turn and the quiet after it (`output_talk.SETTLE`), and a
case waiting for the conversation another case holds."""


def _session_quote(edition: EditionData) -> Quote:
    """The schema's description of the update's `sessionId`."""
    entry = edition.method(edition.prompt.update, "notification") if edition.prompt else None
    name = entry.params if entry is not None else "SessionNotification"
    fields = getattr(getattr(_models(edition), name, None), "model_fields", {})
    info = next((f for f in fields.values() if f.alias == "sessionId"), None)
    said = info.description if info is not None else None
    text = " ".join((said or "The ID of the session this update pertains to.").split())
    return Quote(text, f"{edition.source}#/$defs/{name}/properties/sessionId")


def _show(frame: Frame) -> str:
    text = frame.raw if frame.raw is not None else json.dumps(frame.value, ensure_ascii=False)
    return f"{text[:SHOWN]}{'…' if len(text) > SHOWN else ''} (at {frame.t:.3f} s)"


def _messages(talk: Conversation) -> list[tuple[Frame, dict[str, Any]]]:
    return [(f, f.message) for f in talk.received if f.message is not None]


def _is_message(value: Any) -> bool:
    if type(value) is list:  # a batch
        return bool(value) and all(_is_message(v) for v in value)
    return (
        type(value) is dict
        and value.get("jsonrpc") == "2.0"
        and ("method" in value or "result" in value or "error" in value)
    )


def _verdict(bad: list[Frame], what: str, total: int, ok: str) -> Outcome:
    if not bad:
        return passed(ok)
    return failed(f"{len(bad)} of {total} {what}; the first: {_show(bad[0])}")


def _lines(talk: Conversation, edition: EditionData) -> Outcome:
    lines = [f for f in talk.received if not (f.raw is not None and _PEERS_OWN.match(f.raw))]
    bad = [f for f in lines if not (f.is_json and _is_message(f.value))]
    return _verdict(bad, "lines were no JSON-RPC message", len(lines), f"{len(lines)} lines")


def _answers(talk: Conversation) -> list[tuple[Frame, dict[str, Any]]]:
    return [
        (f, m)
        for f, m in _messages(talk)
        if "method" not in m and ("result" in m or "error" in m) and "id" in m
    ]


def _one_answer(talk: Conversation, edition: EditionData) -> Outcome:
    seen: dict[str, int] = {}
    bad = []
    for frame, message in _answers(talk):
        key = id_key(message["id"])
        if key in talk.asked:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 2:
                bad.append(frame)
    if not bad:
        return passed(f"{len(seen)} requests, each answered once")
    first = talk.asked[id_key(bad[0].message["id"] if bad[0].message else None)]
    return failed(
        f"{len(bad)} of {len(seen)} requests answered more than once, the first "
        f"{first}: {_show(bad[0])}"
    )


def _both(talk: Conversation, edition: EditionData) -> Outcome:
    answers = _answers(talk)
    bad = [f for f, m in answers if "result" in m and "error" in m]
    return _verdict(bad, "answers carried both", len(answers), f"{len(answers)} answers")


def _notifications(talk: Conversation, edition: EditionData) -> Outcome:
    sent = [(f, m) for f, m in _messages(talk) if type(m.get("method")) is str]
    bad = [
        f
        for f, m in sent
        if "id" in m
        and edition.method(m["method"], "notification") is not None
        and edition.method(m["method"], "request") is None
    ]
    return _verdict(bad, "notifications had an id", len(sent), f"{len(sent)} sent")


def _updates(talk: Conversation, edition: EditionData) -> list[tuple[Frame, dict[str, Any]]]:
    method = edition.prompt.update if edition.prompt else None
    return [
        (f, m["params"])
        for f, m in _messages(talk)
        if m.get("method") == method and type(m.get("params")) is dict
    ]


def _sessions(talk: Conversation, edition: EditionData) -> Outcome:
    updates = _updates(talk, edition)
    bad = [
        f
        for f, p in updates
        if type(p.get("sessionId")) is str and p["sessionId"] not in talk.sessions
    ]
    return _verdict(bad, "updates named another session", len(updates), f"{len(updates)} updates")


def _schema(talk: Conversation, edition: EditionData) -> Outcome:
    models = _models(edition)
    messages = _messages(talk)
    problems = []
    for frame, message in messages:
        problem = check_message(message, talk.asked, edition, models)
        if problem is not None:
            problems.append((frame, problem))
    if not problems:
        return passed(f"{len(messages)} messages")
    frame, problem = problems[0]
    return failed(
        f"{len(problems)} of {len(messages)} messages do not fit the schema; the first, "
        f"{problem.line()}: {_show(frame)}"
    )


def _gate_case(gate: Gate) -> Case:
    def judge(talk: Conversation, edition: EditionData) -> Outcome:
        if gate.update is not None:
            bad = [
                f
                for f, p in _updates(talk, edition)
                if type(p.get("update")) is dict and p["update"].get("sessionUpdate") == gate.update
            ]
        else:
            bad = [f for f, m in _messages(talk) if m.get("method") in gate.methods]
        if not bad:
            return passed()
        return failed(
            f"{len(bad)} sent though the client did not advertise `{gate.capability}`; "
            f"the first: {_show(bad[0])}"
        )

    what = f"`{gate.update}` updates" if gate.update else " / ".join(gate.methods)
    return _case(
        f"output.unadvertised.{gate.name}",
        f"no {what} to a client that did not advertise `{gate.capability}`",
        gate.quote,
        judge,
    )
