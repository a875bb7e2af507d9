"""The case model (layer: cases): what one conformance case is, what it concludes, and what it
is given to run.

A `Case` is data plus one async check: its id (`family.name`, the name of what it checks), a
title, a level (MUST, SHOULD or informative, from the words of the text it rests on), that text
and where it is said (`Quote`), the capabilities it requires of the program, and `check`, which
talks to a fresh program through a `Peer` and returns an `Outcome`: pass, fail with the reason,
or skip with the reason (the program does not offer what the case needs).
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from .data import EditionData, Level, Quote
from .peer import NoAnswer, Peer

Status = Literal["pass", "fail", "skip"]
LEVELS: tuple[Level, ...] = ("MUST", "SHOULD", "informative")

JSON_RPC = "JSON-RPC 2.0"
"""The source name of quotes from https://www.jsonrpc.org/specification."""


@dataclass(frozen=True, slots=True)
class Outcome:
    status: Status
    reason: str = ""
    details: tuple[str, ...] = ()
    """Every finding behind the reason, when the reason names only the first few (the fuzz's
    deviations): in the trace, JUnit and the HTML page."""


NOT_JUDGED = "not judged: "
"""How the reason of a case not judged (an earlier step failed: `NotJudged`) begins."""


def passed(reason: str = "") -> Outcome:
    return Outcome("pass", reason)


def failed(reason: str, details: tuple[str, ...] = ()) -> Outcome:
    return Outcome("fail", reason, details)


def skipped(reason: str) -> Outcome:
    return Outcome("skip", reason)


class Failure(Exception):
    """Raised inside a check to fail the case with one line (`failed` as an exception)."""


class Skip(Exception):
    """Raised inside a check to skip the case with one line."""


class NotJudged(Failure):
    """A step the case needs before its own rule failed (`initialize`, `session/new`): the case
    is reported not judged (a skip whose reason begins `not judged: `), except in the families
    whose own rule that step is (`own`: `negotiation` for `initialize`), where it fails."""

    def __init__(self, reason: str, own: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.own = own


class NeverAnswered(NoAnswer):
    """The program's first request, `initialize`, was never answered with its id (another id,
    lines that are no answer, nothing): no case can be judged, the run stops at once."""


@dataclass
class Context:
    """What a check is given: the program (already started), the edition's data and models,
    and the suite's settings."""

    peer: Peer
    edition: EditionData
    models: ModuleType
    timeout: float
    """Seconds any one answer may take."""
    workdir: str = field(default_factory=tempfile.gettempdir)
    """An existing folder for `session/new`'s `cwd`."""
    initialized: dict[str, Any] | None = None
    """The program's `initialize` result, once a shared case has asked for it."""
    busy_prompt: str | None = None
    """The prompt whose turn the cases that act on a running turn send (`--busy-prompt`; None:
    the suite's own, `steps.busy_prompt`)."""
    _ids: int = 0

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def call(self, method: str, params: Any, *, what: str | None = None) -> dict[str, Any]:
        """Send a request and wait for its answer (`result` or `error`)."""
        request_id = self.next_id()
        self.peer.request(request_id, method, params)
        return await self.peer.answer(request_id, self.timeout, what or method)


Check = Callable[[Context], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    title: str
    level: Level
    quote: Quote
    check: Check = field(repr=False, compare=False)
    requires: tuple[str, ...] = ()
    """The capabilities (wire paths in the `initialize` result, dotted) the case needs."""
    budget: float = 0.0
    """Seconds the case may take beyond the suite's timeout (a turn it waits through)."""
    shared: bool = False
    """The case may run on a program earlier cases ran on (after `initialize`, leaving it as
    it found it: every request answered): see the runner."""

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]


def error_code(answer: dict[str, Any]) -> int | None:
    """The code of an error answer (None for a result or a malformed error)."""
    error = answer.get("error")
    if type(error) is dict and type(error.get("code")) is int:
        code: int = error["code"]
        return code
    return None


def describe(answer: dict[str, Any]) -> str:
    """An answer in a few words: `error -32601 "Method not found"` or `a result`."""
    code = error_code(answer)
    if code is not None:
        message = answer["error"].get("message")
        return f"error {code}" + (f" {message!r}" if type(message) is str else "")
    if "result" in answer:
        return "a result"
    return "a malformed answer"
