"""The seeded frames of the fuzz family and what each must get (layer: data for a case family).

`make_frames(seed, count)` draws `count` lines from `random.Random(seed)` (the same lines for a
seed on every Python the package supports): requests, notifications, responses and invalid
messages put together from the envelope rule book's pieces (ids of every JSON type, `jsonrpc`
values, params, members in any order, escaped keys, whitespace), lines cut short, bytes that
are not UTF-8, JSON values that are not objects, batches and blank lines. No method an agent
serves is named: requests go to methods no agent has (`_conformance/…`, `nope/x`, `""`, `$/x`).

`requirements(frame)` is the rule book's oracle for one line, each requirement with the level
the book's quote for its rule gives (envelope.json, levels.py): the id answered exactly (any
answer: an agent may answer an unknown `_` method with a result), -32700 and -32600 with a null
id when no id can be read (an id that is no String, Number or null among them), and never
answering a notification are MUST; the error codes JSON-RPC names without a MUST (-32601, -32600
with a readable id), never answering a response or a malformed notification, blank lines, ids
JSON-RPC admits and ACP's RequestId does not (fractions, beyond int64; null where the edition's
RequestId refuses it), forms RFC 8259 leaves to the parser, batches and bytes that are not UTF-8
are informative. A request is also answered exactly once with its id (JSON-RPC 2.0 §4, §5: "the
Server MUST reply with a Response", whose id "MUST be the same as the value of the id member in
the Request Object"): MUST; where the edition's RequestId admits null (v1), a request with a
null id is such a request.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from .data import Level

INT64 = range(-(2**63), 2**63)
"""ACP RequestId: "type": "integer", "format": "int64", or a string."""

KINDS: tuple[tuple[str, int], ...] = (
    ("request", 24),
    ("malformed_request", 10),
    ("notification", 14),
    ("malformed_notification", 6),
    ("response", 8),
    ("no_method", 4),
    ("unusable_id", 8),
    ("mixed", 2),
    ("truncated", 6),
    ("garbage", 2),
    ("not_json_form", 2),
    ("not_utf8", 2),
    ("scalar", 4),
    ("batch", 3),
    ("blank", 3),
    ("crlf", 2),
)
"""Kinds of line and their weights."""

UNKNOWN_METHODS = ("_conformance/fuzz", "nope/x", "_conformance/echo")
ODD_METHODS = ("", "$/x", "$/cancel_request")
NOTIFICATIONS = ("_conformance/note", "note", "$/progress", "$/cancelRequest")
STRAY_CANCELS: tuple[Any, ...] = (
    {"requestId": "conformance-nothing"},
    {"requestId": -987654321},
    {},
    None,
)
PARAMS: tuple[Any, ...] = (
    {},
    {"a": 1},
    {"id": 5, "nested": {"id": "x", "method": "session/prompt"}},
    {"s": '"id":1,'},
    {"text": "é😀\n\u0000\u2028"},
    {"f": 0.5, "neg": -3, "big": 2**70},
    [1, "x"],
)
SCALAR_PARAMS: tuple[Any, ...] = ("x", 42, True)
BAD_JSONRPC: tuple[Any, ...] = (2.0, "1.0", None, "2.0 ", "2")
UNUSABLE_IDS: tuple[tuple[str, Level], ...] = (
    ("1.5", "informative"),
    ("1e30", "informative"),
    ("{n}.0", "informative"),
    ("1E2", "informative"),
    ("null", "informative"),
    ("9223372036854775808", "informative"),
    ("-9223372036854775809", "informative"),
    ("true", "MUST"),
    ("false", "MUST"),
    ("{}", "MUST"),
    ("[{n}]", "MUST"),
)
"""Ids an answer cannot carry back, each with the level the book gives it (-32600, null id)."""
NOT_JSON_FORMS = (
    '{"jsonrpc":"2.0","id":{n},"method":"nope/x",}',
    "{'jsonrpc':'2.0','id':{n},'method':'nope/x'}",
    '{"jsonrpc":"2.0","id":NaN,"method":"nope/x"}',
    '{"jsonrpc":"2.0","id":0{n},"method":"nope/x"}',
    '{"jsonrpc":"2.0","id":{n},"method":"nope/x"} {}',
)
SCALARS = ("42", '"x"', "null", "true", '"session/prompt"', "-1.5", "{}", '{"jsonrpc":"2.0"}')
BLANKS = ("", " ", "\t", "  \t ", "\r")
RESPONSE_MEMBERS: tuple[dict[str, Any], ...] = (
    {"result": {}},
    {"result": None},
    {"error": {"code": -32603, "message": "m"}},
    {"result": [1]},
)


@dataclass(frozen=True, slots=True)
class Requirement:
    """What one line must get: no answer (`answered` False), or exactly one answer with `id`
    (and, when `code` is not None, that error code)."""

    level: Level
    rule: str
    answered: bool
    id: Any = None
    code: int | None = None


@dataclass(frozen=True, slots=True)
class FuzzFrame:
    number: int
    kind: str
    line: bytes
    id: Any = None
    """The id an answer to this line carries (None: no id can be read)."""
    requirements: tuple[Requirement, ...] = ()


class Draw:
    """One seeded stream of choices."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def pick(self, options: tuple[Any, ...]) -> Any:
        return options[self.random.randrange(len(options))]

    def chance(self, percent: int) -> bool:
        return self.random.randrange(100) < percent

    def usable_id(self, n: int) -> tuple[str, Any]:
        """An id an answer carries back: its text and its value (unique per line: `n`)."""
        big = 9007199254800001 + 4 * n
        texts = (
            (str(n), n),
            (str(-n), -n),
            (str(big), big),
            (f"92233720368547{n:05d}", int(f"92233720368547{n:05d}")),
            (f'"s{n}"', f"s{n}"),
            (f'"{n}"', str(n)),
            (f'"\\u00e9{n}"', f"é{n}"),
            (f'"q\\"{n}"', f'q"{n}'),
            (f'"😀{n}"', f"😀{n}"),
        )
        text, value = self.pick(texts)
        return text, value

    def value(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=self.chance(50), separators=(",", ":"))

    def obj(self, members: list[tuple[str, str]]) -> str:
        """An object from (key, JSON text) members, shuffled, with varied spacing; the key "id"
        sometimes written with an escape (`"\\u0069d"`: still the id)."""
        self.random.shuffle(members)
        colon: str = self.pick((":", ": ", " :"))
        comma: str = self.pick((",", ", ", " ,\t"))
        parts = []
        for key, text in members:
            written = '"\\u0069d"' if key == "id" and self.chance(10) else json.dumps(key)
            parts.append(f"{written}{colon}{text}")
        opening: str = self.pick(("{", "{ "))
        return opening + comma.join(parts) + "}"


def make_frames(seed: int, count: int, null_id: bool = False) -> list[FuzzFrame]:
    """`count` lines from `seed`; `null_id`: the edition's RequestId admits null (v1)."""
    draw = Draw(seed)
    kinds = tuple(kind for kind, weight in KINDS for _ in range(weight))
    return [_frame(draw, draw.pick(kinds), number, null_id) for number in range(count)]


def _frame(draw: Draw, kind: str, number: int, null_id: bool = False) -> FuzzFrame:
    n = 1000 + number
    if kind in ("request", "crlf", "malformed_request", "mixed", "unusable_id", "truncated"):
        return _request(draw, kind, number, n, null_id)
    if kind in ("notification", "malformed_notification"):
        return _notification(draw, kind, number)
    if kind in ("response", "no_method"):
        return _no_method(draw, kind, number, n)
    if kind == "garbage":
        line = draw.pick(("x", "garbage", "{", "]", "{]")).encode()
        return _parse_error(number, kind, line, "MUST")
    if kind == "not_json_form":
        line = draw.pick(NOT_JSON_FORMS).replace("{n}", str(n)).encode()
        return _parse_error(number, kind, line, "informative")
    if kind == "not_utf8":
        whole = _request(draw, "request", number, n).line
        cut = 1 + draw.random.randrange(len(whole) - 1)
        return _parse_error(number, kind, whole[:cut] + b"\xff" + whole[cut:], "informative")
    if kind == "scalar":
        line = draw.pick(SCALARS).encode()
        rule = "a JSON value that is not a request object: -32600 with a null id"
        return FuzzFrame(number, kind, line, None, (Requirement("MUST", rule, True, None, -32600),))
    if kind == "batch":
        size = draw.random.randrange(3)
        members = [
            _request(draw, "request", number, n + 100000 * (k + 1)).line for k in range(size)
        ]
        line = b"[" + b",".join(members) + b"]"
        if not members:
            rule = "an empty array: -32600 with a null id"
            return FuzzFrame(
                number, kind, line, None, (Requirement("MUST", rule, True, None, -32600),)
            )
        return FuzzFrame(number, kind, line)  # ACP has no batches: the probe after it answered
    assert kind == "blank", kind
    rule = "a blank line carries no message: never answered"
    line = draw.pick(BLANKS).encode()
    return FuzzFrame(number, kind, line, None, (Requirement("informative", rule, False),))


def _parse_error(number: int, kind: str, line: bytes, level: Level) -> FuzzFrame:
    rule = "not JSON: -32700 with a null id"
    return FuzzFrame(number, kind, line, None, (Requirement(level, rule, True, None, -32700),))


def _request(draw: Draw, kind: str, number: int, n: int, null_id: bool = False) -> FuzzFrame:
    id_text, id_value = draw.usable_id(n)
    members = [("jsonrpc", '"2.0"'), ("id", id_text)]
    if kind == "unusable_id":
        text, id_level = draw.pick(UNUSABLE_IDS)
        members[1] = ("id", text.replace("{n}", str(n)))
        members.append(("method", json.dumps(draw.pick(UNKNOWN_METHODS))))
        rule = "an id an answer cannot carry: -32600 with a null id"
        line = draw.obj(members).encode()
        if null_id and text == "null":
            exactly = "RequestId admits null: a request answered once, with id null"
            return FuzzFrame(number, kind, line, None, (Requirement("MUST", exactly, True),))
        refused = Requirement(id_level, rule, True, None, -32600)
        return FuzzFrame(number, kind, line, None, (refused,))
    method = draw.pick(ODD_METHODS if draw.chance(20) else UNKNOWN_METHODS)
    params: Any = draw.pick(PARAMS)
    level: Level = "informative"  # JSON-RPC names -32601 without a MUST; ACP "should" for `_`
    rule = f"a request for a method the agent does not have ({method!r}): -32601"
    code: int | None = -32601
    well_formed = True
    if kind == "malformed_request":
        flaw = draw.random.randrange(4)
        if flaw == 0:
            members[0] = ("jsonrpc", draw.value(draw.pick(BAD_JSONRPC)))
        elif flaw == 1:
            members.pop(0)
        elif flaw == 2:
            params = draw.pick(SCALAR_PARAMS)
        else:
            method = draw.pick((7, None, ["nope/x"]))
        code, well_formed = -32600, False
        rule = "a malformed request with a readable id: -32600 with that id"
    elif draw.chance(10):
        params = None  # not a structured value: the book's "passes to the handler"
    members.append(("method", draw.value(method)))
    if draw.chance(85) or kind == "malformed_request":
        members.append(("params", draw.value(params)))
    if kind == "mixed":
        members.append(next(iter(draw.pick(RESPONSE_MEMBERS).items())))
        members[-1] = (members[-1][0], draw.value(members[-1][1]))
        level, well_formed = "informative", False
        rule = "a request with a result or error member: answered as a request (-32601)"
    if type(method) is str and method.startswith("_") and code == -32601:
        code = None  # an extension method: any answer (methods.unknown_method_not_found judges)
        rule = f"a request for an extension method ({method!r}): answered, a result or an error"
    text = draw.obj(members)
    if kind == "truncated":
        cut = 1 + draw.random.randrange(len(text.encode()) - 1)
        return _parse_error(number, kind, text.encode()[:cut], "MUST")
    line = text.encode() + (b"\r" if kind == "crlf" else b"")
    found = [Requirement(level, rule, True, id_value, code)]
    if well_formed:
        exactly = "a request is answered exactly once, with its own id"
        found.insert(0, Requirement("MUST", exactly, True, id_value))
    if kind == "crlf":
        found = [
            Requirement(
                "informative", rule + " (a line ending in CRLF is read)", True, id_value, code
            )
        ]
    return FuzzFrame(number, kind, line, id_value, tuple(found))


def _notification(draw: Draw, kind: str, number: int) -> FuzzFrame:
    method = draw.pick(NOTIFICATIONS)
    members = [("jsonrpc", '"2.0"'), ("method", json.dumps(method))]
    params: Any = draw.pick(PARAMS)
    if draw.chance(15):
        method = "$/cancel_request"
        members[1] = ("method", json.dumps(method))
        params = draw.pick(STRAY_CANCELS)
    level: Level = "MUST"
    if kind == "malformed_notification":
        level = "informative"  # not a valid Request object: not a Notification JSON-RPC names
        if draw.chance(50):
            members[0] = ("jsonrpc", draw.value(draw.pick(BAD_JSONRPC)))
        else:
            params = draw.pick(SCALAR_PARAMS)
    if params is not None:
        members.append(("params", draw.value(params)))
    line = draw.obj(members).encode()
    rule = "a notification is never answered"
    return FuzzFrame(number, kind, line, None, (Requirement(level, rule, False),))


def _no_method(draw: Draw, kind: str, number: int, n: int) -> FuzzFrame:
    id_text, id_value = draw.usable_id(n)
    members = [("jsonrpc", '"2.0"'), ("id", id_text)]
    if kind == "no_method":
        members.append(("params", "{}"))
        if draw.chance(30):
            members.pop(1)
            rule = "an object with no id, method, result or error: -32600 with a null id"
            line = draw.obj(members).encode()
            found = Requirement("MUST", rule, True, None, -32600)
            return FuzzFrame(number, kind, line, None, (found,))
        rule = "no method, no result or error, a readable id: -32600 with that id"
        line = draw.obj(members).encode()
        return FuzzFrame(
            number,
            kind,
            line,
            id_value,
            (Requirement("informative", rule, True, id_value, -32600),),
        )
    key, value = next(iter(draw.pick(RESPONSE_MEMBERS).items()))
    members.append((key, draw.value(value)))
    if draw.chance(20):
        members.pop(1)
    line = draw.obj(members).encode()
    rule = "a response (to no request of the agent's) is never answered"
    return FuzzFrame(number, kind, line, None, (Requirement("informative", rule, False),))


def usable(value: Any) -> bool:
    """An id an answer can carry back: an int64 integer or a string."""
    return (type(value) is int and value in INT64) or type(value) is str
