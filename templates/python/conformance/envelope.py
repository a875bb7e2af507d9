"""The envelope rule book against an agent (layer: case family): JSON-RPC framing, ids, parse
errors, invalid requests, notifications and responses, one case per entry of `envelope.json`.

`envelope.json` holds the cases of the rule book (tests/wire/envelope_corpus.json in the
acp-codegen repository) that hold for any agent, unchanged, each with the text its verdict rests
on (`quote`) and the level that text's words give (levels.py; see its `about`). The book's
handler answers `echo` with its params; an agent has none, so `echo` is sent as
`_conformance/echo` and an answer the book gives as a result is expected as any answer with the
same id (ACP only says agents "should" answer an unknown `_` method -32601: a result is allowed).
After its frames, a case sends a probe request and reads every answer up to the probe's and a
short silence after it: the answers must be the book's, no more and no fewer. The cases are
shared (runner.py): one program serves a dozen in turn, initialized once.

An entry with `null_id_admitted` is judged by it where the edition's `RequestId` admits null
(v1: "a String, Number, or NULL value"; the edition's data says so, from the schema): a request
with `"id": null` is then a request like another, answered with the same id.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from .cases import Case, Context, Outcome, failed, passed
from .data import EditionData, Quote
from .levels import level_of
from .peer import NoAnswer, is_response
from .steps import PROBE_METHOD, initialized

ECHO = "_conformance/echo"
_ECHO_METHOD = re.compile(rb'("method"\s*:\s*)"echo"')
SETTLE = 0.15
"""Seconds of silence after the probe's answer in which no other answer may come."""


@cache
def book() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        Path(__file__).with_name("envelope.json").read_text(encoding="utf-8")
    )
    return loaded


SOURCE = "the envelope rule book (JSON-RPC 2.0, RFC 8259, ACP)"
ANSWERED = "answered"
"""The outcome of an `echo` answer: any answer with the id (a result or an error)."""


def edition_entry(entry: dict[str, Any], edition: EditionData) -> dict[str, Any]:
    """The entry as the edition judges it: `null_id_admitted`'s answers, level and quote (the
    schema's description of `RequestId`) where the edition's `RequestId` admits null."""
    admitted = entry.get("null_id_admitted")
    if admitted is None or not edition.null_request_id:
        return entry
    quote = edition.request_id.text if edition.request_id is not None else admitted["quote"]
    source = edition.request_id.source if edition.request_id is not None else SOURCE
    return {
        **entry,
        "answers": admitted["answers"],
        "level": level_of(quote),
        "quote": quote,
        "source": f"{source} (RequestId admits null in this edition)",
    }


def cases(edition: EditionData) -> list[Case]:
    found = []
    for original in book()["cases"]:
        entry = edition_entry(original, edition)
        source = f"{SOURCE}: {entry['source']}" if "source" in entry else SOURCE
        found.append(
            Case(
                f"envelope.{entry['name']}",
                entry["name"].replace("_", " "),
                entry["level"],
                Quote(entry["quote"], source),
                _check(entry),
                shared=True,
            )
        )
    return found


def frame_bytes(item: str | dict[str, str]) -> bytes:
    """A `send` item (a line's text, or {"hex": …}) as sent to an agent: `echo` renamed."""
    line = item.encode() if isinstance(item, str) else bytes.fromhex(item["hex"])
    return _ECHO_METHOD.sub(rb'\1"' + ECHO.encode() + rb'"', line)


def key(answer_id: Any, error: int | None, result: Any = None) -> str:
    """One answer as comparable text: the id as a JSON value (7 and "7" differ, integers exact),
    then the error code or the result."""
    outcome = {"error": error} if error is not None else {"result": result}
    return json.dumps({"id": answer_id, **outcome}, sort_keys=True, ensure_ascii=False)


def answered(answer_id: Any) -> str:
    """Any answer with `answer_id`, as comparable text (what an `echo` result is expected as)."""
    return json.dumps({"id": answer_id, ANSWERED: True}, sort_keys=True, ensure_ascii=False)


def expected(entry: dict[str, Any]) -> Counter[str]:
    """The book's answers, an `echo` result expected as any answer with its id."""
    return Counter(
        answered(json.loads(a["id"])) if "result" in a else key(json.loads(a["id"]), a["error"])
        for a in entry["answers"]
    )


def shape_problem(answer: Any) -> str | None:
    """What is wrong with an answer's shape (JSON-RPC 2.0 §5), or None."""
    if type(answer) is not dict or answer.get("jsonrpc") != "2.0" or "id" not in answer:
        return f"not a response: {json.dumps(answer)}"
    if ("result" in answer) == ("error" in answer):
        return f"not exactly one of result and error: {json.dumps(answer)}"
    error = answer.get("error")
    if "error" in answer and not (
        type(error) is dict and type(error.get("code")) is int and type(error.get("message")) is str
    ):
        return f"a malformed error object: {json.dumps(answer)}"
    return None


def _check(entry: dict[str, Any]) -> Any:
    async def check(ctx: Context) -> Outcome:
        await initialized(ctx)
        start = len(ctx.peer.received)
        for item in entry["send"]:
            ctx.peer.send_line(frame_bytes(item))
        probe_id = f"probe: the connection still answers ({entry['name']})"
        ctx.peer.request(probe_id, PROBE_METHOD)
        try:
            await ctx.peer.wait_for(
                lambda f: is_response(f, probe_id), ctx.timeout, "answer to the probe", start=start
            )
        except NoAnswer as error:
            return failed(f"{error} (sent after the case's frames)")
        await ctx.peer.quiet(SETTLE)
        want = expected(entry)
        got: Counter[str] = Counter()
        for frame in ctx.peer.received[start:]:
            if is_response(frame, probe_id):
                continue
            message = frame.message
            if message is not None and "method" in message:
                continue  # the agent's own requests and notifications are not answers
            problem = shape_problem(frame.value if frame.is_json else frame.raw)
            if problem is not None or message is None:
                got[problem or "not a response"] += 1
                continue
            code = message["error"]["code"] if "error" in message else None
            any_answer = answered(message["id"])
            exact = key(message["id"], code, message.get("result"))
            got[any_answer if any_answer in want else exact] += 1
        if got == want:
            return passed()
        missing = list((want - got).elements())
        unexpected = list((got - want).elements())
        parts = []
        if missing:
            parts.append(f"expected {', '.join(missing)}")
        if unexpected:
            parts.append(f"got {', '.join(unexpected)}")
        return failed("; ".join(parts))

    return check
