"""The envelope rule book (tests/wire/envelope_corpus.json) on the Python runtime: its cases, the
handler every case runs against, the oracle of its rules for one frame, and its seeded frames.

The TypeScript runtime runs the same book (tests/typescript/envelope.ts): a rule changed here is
changed there, and the corpus is the one place both read. Ids are compared as JSON values read by
the standard `json` module, so an integer id is compared as an integer, never through a double.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from acp_protocol.runtime import MethodNotFound, RequestContext

from tests.paths import ROOT
from tests.runtime.support import WAIT, RawPeer, deadline

CORPUS_PATH = ROOT / "tests" / "wire" / "envelope_corpus.json"
BOOK: dict[str, Any] = json.loads(CORPUS_PATH.read_text(encoding="utf-8"))

INT64 = range(-(2**63), 2**63)
"""ACP RequestId: "type": "integer", "format": "int64"."""

PROBE = b'{"jsonrpc":"2.0","id":"probe: the connection still answers","method":"echo"}'
PROBE_ID = "probe: the connection still answers"


class RuleBookHandler:
    """The handler of every case: `echo` answers its params, `hold` answers only when cancelled,
    any other request is -32601; every notification handed over is recorded."""

    def __init__(self) -> None:
        self.handled: list[dict[str, Any]] = []

    async def handle_request(self, method: str, params: Any, context: RequestContext) -> Any:
        if method == "echo":
            return params
        if method == "hold":
            await asyncio.Event().wait()  # until cancelled: answered -32800
        raise MethodNotFound(data={"method": method})

    def handle_notification(self, method: str, params: Any) -> None:
        self.handled.append({"method": method, "params": params})


# -- what a case expects ----------------------------------------------------------------------


def frame_bytes(item: str | dict[str, str]) -> bytes:
    """A `send` item: a line's text (UTF-8), or {"hex": ...} raw bytes."""
    return item.encode() if isinstance(item, str) else bytes.fromhex(item["hex"])


def answer_key(answer_id: Any, error: int | None, result: Any = None) -> str:
    """One answer as comparable text: the id as a JSON value (7 and "7" differ, an integer is
    exact), then the error code or the result."""
    outcome = {"error": error} if error is not None else {"result": result}
    return json.dumps({"id": answer_id, **outcome}, sort_keys=True, ensure_ascii=False)


def expected_answers(case: dict[str, Any]) -> Counter[str]:
    return Counter(
        answer_key(json.loads(a["id"]), a.get("error"), a.get("result")) for a in case["answers"]
    )


# -- the oracle: one frame, the rules of JSON-RPC 2.0 §4, §5, §5.1 and ACP ------------------------


@dataclass
class Outcome:
    """What the connection must do with some frames: these answers (any order) and these
    notifications handed to the handler (in order)."""

    answers: Counter[str] = field(default_factory=Counter)
    handled: list[dict[str, Any]] = field(default_factory=list)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # strict JSON: NaN, Infinity are not values


def usable_id(value: Any) -> bool:
    """ACP RequestId: an int64 integer or a string (never a bool, null or a fraction)."""
    return (type(value) is int and value in INT64) or type(value) is str


BLANK = b" \t\r\x0b\x0c"


def oracle(line: bytes, outcome: Outcome) -> None:
    """Add to `outcome` what the connection must do with `line`, by the book's rules. A `hold`
    request is answered -32800: the frame generator always cancels it later."""
    if not line.strip(BLANK):
        return  # a blank line carries no message
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=_no_constants)
    except ValueError:
        outcome.answers[answer_key(None, -32700)] += 1
        return
    if type(message) is not dict:
        outcome.answers[answer_key(None, -32600)] += 1  # batches too: ACP has none
        return
    request_id = message.get("id")
    answer_id = request_id if usable_id(request_id) else None
    if "method" not in message:
        if "result" not in message and "error" not in message:
            outcome.answers[answer_key(answer_id, -32600)] += 1
        return  # a response is never answered
    has_id = "id" in message
    if has_id and answer_id is None:
        outcome.answers[answer_key(None, -32600)] += 1
        return
    method, params = message["method"], message.get("params")
    if type(method) is not str:
        outcome.answers[answer_key(answer_id, -32600)] += 1
        return
    malformed = message.get("jsonrpc") != "2.0" or not (
        params is None or type(params) in (dict, list)
    )
    if malformed or not has_id:
        if malformed and has_id:
            outcome.answers[answer_key(answer_id, -32600)] += 1
        elif not malformed and method != "$/cancel_request":
            outcome.handled.append({"method": method, "params": params})
        return
    if method == "echo":
        outcome.answers[answer_key(answer_id, None, params)] += 1
    else:
        code = -32800 if method == "hold" else -32601  # `$/…` requests are -32601 too
        outcome.answers[answer_key(answer_id, code)] += 1


# -- the seeded frames -----------------------------------------------------------------------------


def mulberry32(seed: int) -> Iterator[int]:
    """The generator both runtimes use (32-bit unsigned draws), so both send the same frames."""
    state = seed & 0xFFFFFFFF
    while True:
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = ((state ^ (state >> 15)) * (state | 1)) & 0xFFFFFFFF
        t = (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF ^ t
        yield (t ^ (t >> 14)) & 0xFFFFFFFF


class Frames:
    """The book's fuzz: `pieces` put together by one algorithm (the corpus's `fuzz.algorithm`)."""

    def __init__(self, fuzz: dict[str, Any]) -> None:
        self.fuzz = fuzz
        self.pieces: dict[str, list[Any]] = fuzz["pieces"]
        self._draws = mulberry32(fuzz["seed"])

    def draw(self) -> int:
        return next(self._draws)

    def pick(self, name: str) -> Any:
        options = self.pieces[name]
        return options[self.draw() % len(options)]

    def pick_text(self, name: str) -> str:
        return str(self.pick(name))

    def chance(self, percent: int) -> bool:
        return self.draw() % 100 < percent

    @staticmethod
    def fill(template: str, n: int) -> str:
        big = 9007199254800001 + 4 * n
        return (
            template.replace("{n5}", f"{n:05d}")
            .replace("{big-1}", str(big - 1))
            .replace("{big}", str(big))
            .replace("{n}", str(n))
        )

    def members(self, *parts: tuple[str, int, str]) -> str:
        """An object from (key, percent, pieces) parts, each present by chance, shuffled."""
        members: list[str] = []
        for key, percent, pieces in parts:
            if self.chance(percent):
                value = self.pick_text(pieces)
                members.append(value if key == "" else f'"{key}"{self.pick_text("colons")}{value}')
        for k in range(len(members) - 1, 0, -1):  # Fisher-Yates
            j = self.draw() % (k + 1)
            members[k], members[j] = members[j], members[k]
        return "{" + self.pick_text("separators").join(members) + "}"

    def soup(self, n: int) -> bytes:
        text = self.members(
            ("jsonrpc", 90, "jsonrpc"),
            ("method", 85, "methods"),
            ("id", 70, "ids"),
            ("params", 70, "params"),
            ("", 5, "response_members"),
        )
        return self.fill(text, n).encode()

    def all(self) -> list[bytes]:
        count = self.fuzz["frames"]
        kinds = [kind for kind, weight in self.fuzz["kinds"] for _ in range(weight)]
        frames: list[bytes] = []
        holds: list[tuple[int, bytes]] = []  # (due, cancel line), in the order held
        while len(frames) < count or holds:
            due = next((h for h in holds if h[0] <= len(frames) or len(frames) >= count), None)
            if due is not None:
                holds.remove(due)
                frames.append(due[1])
                continue
            n = 1000 + len(frames)
            kind = kinds[self.draw() % len(kinds)]
            if kind == "soup":
                frames.append(self.soup(n) + (b"\r" if self.chance(5) else b""))
            elif kind == "truncated":
                whole = self.soup(n)
                frames.append(whole[: 1 + self.draw() % (len(whole) - 1)])
            elif kind == "not_utf8":
                whole = self.soup(n)
                cut = 1 + self.draw() % (len(whole) - 1)
                frames.append(whole[:cut] + b"\xff" + whole[cut:])
            elif kind == "batch":
                shape = self.draw() % 3
                inner = [] if shape == 0 else [self.soup(n) for _ in range(shape)]
                frames.append(b"[" + b",".join(inner) + b"]")
            elif kind in ("value", "blank"):
                frames.append(self.pick_text(kind + "s").encode())
            elif kind == "hold":
                held, cancel_as, neighbour = (
                    self.fill(t, n) if t else t for t in self.pick("holds")
                )
                frames.append(f'{{"jsonrpc":"2.0","id":{held},"method":"hold"}}'.encode())
                cancel = '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":%s}}'
                holds.append((len(frames) + self.draw() % 50, (cancel % cancel_as).encode()))
                if neighbour:
                    frames.append(f'{{"jsonrpc":"2.0","id":{neighbour},"method":"echo"}}'.encode())
            elif kind == "stray_cancel":
                params = self.pick_text("stray_cancel_params")
                frames.append(
                    f'{{"jsonrpc":"2.0","method":"$/cancel_request","params":{params}}}'.encode()
                )
            else:
                assert kind == "response", kind
                text = self.members(
                    ("jsonrpc", 90, "jsonrpc"), ("id", 80, "ids"), ("", 100, "response_members")
                )
                frames.append(self.fill(text, n).encode())
        return frames


def digest(frames: list[bytes]) -> str:
    """The sha256 of the frames as sent (each followed by a newline): equal in both runtimes."""
    return hashlib.sha256(b"".join(frame + b"\n" for frame in frames)).hexdigest()


# -- running frames through a connection ------------------------------------------------------


def shape_problem(answer: Any) -> str | None:
    """What is wrong with an answer's shape (JSON-RPC 2.0 §5), or None."""
    if type(answer) is not dict or answer.get("jsonrpc") != "2.0" or "id" not in answer:
        return f"not a response: {answer!r}"
    if ("result" in answer) == ("error" in answer):
        return f"not exactly one of result and error: {answer!r}"
    error = answer.get("error")
    if "error" in answer and not (
        type(error) is dict and type(error.get("code")) is int and type(error.get("message")) is str
    ):
        return f"a malformed error object: {answer!r}"
    return None


async def answers_to(peer: RawPeer, count: int, *, wait: float = WAIT) -> Counter[str]:
    """The next `count` answers and the probe's (sent by the caller after its frames), then a
    short silence; every answer in comparable form (shape problems as their own entries)."""
    got: Counter[str] = Counter()
    probed = False
    try:
        async with deadline(wait):
            while sum(got.values()) < count or not probed:
                answer = await peer.receive(timeout=wait)
                if type(answer) is dict and answer.get("id") == PROBE_ID:
                    probed = True
                    continue
                problem = shape_problem(answer)
                if problem is not None:
                    got[problem] += 1
                    continue
                error = answer.get("error")
                got[
                    answer_key(
                        answer["id"], None if error is None else error["code"], answer.get("result")
                    )
                ] += 1
    except TimeoutError:
        if not probed:
            got["(the probe was never answered)"] += 1
    while True:
        try:
            extra = await peer.receive(timeout=0.02)
        except TimeoutError:
            return got
        got[f"late: {json.dumps(extra)}"] += 1


def difference(expected: Counter[str], got: Counter[str], limit: int = 3) -> str:
    """One line: what was missing and what came unexpected, a few of each."""
    missing = list((expected - got).elements())
    unexpected = list((got - expected).elements())
    return (
        f"{len(missing)} expected answers missing {missing[:limit]}, "
        f"{len(unexpected)} unexpected {unexpected[:limit]}"
    )
