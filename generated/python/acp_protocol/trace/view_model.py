# Copied by acp-codegen from templates/python/trace/view_model.py. Do not edit here:
# edit the source, then run `make generate`.

"""What `trace view` shows of a recording (layer: data): the requests with their answers, the
sessions and their turns, tool calls, permission requests, cancels and problems. `view_summary`
fills them from the frames; `view`, `page` and `view_turns` show them.

A turn is a `session/prompt`: v1 ends it with the answer (`stopReason`); v2 answers it with the
user message's `messageId` and ends it with a `state_update` `idle` (its `stopReason`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..runtime import ClientState


@dataclass
class Request:
    index: int
    t: float
    dir: str
    method: str
    id: Any
    params: Any = None
    answer: int | None = None
    answered: float | None = None
    result: Any = None
    error: dict[str, Any] | None = None

    @property
    def latency(self) -> float | None:
        return None if self.answered is None else self.answered - self.t


@dataclass
class ToolCall:
    id: str
    session: str
    index: int
    title: str = ""
    kind: str = ""
    status: str = ""
    history: list[tuple[int, float, str, str]] = field(default_factory=list)
    """(frame, t, status, title), each time the status or title changed."""


@dataclass
class Permission:
    request: Request
    title: str
    options: list[dict[str, Any]]

    @property
    def answer(self) -> str:
        if self.request.error is not None:
            return f"error {self.request.error.get('code')}"
        outcome = self.request.result.get("outcome") if type(self.request.result) is dict else None
        if type(outcome) is not dict:
            return "never answered" if self.request.answer is None else "no outcome"
        chosen = outcome.get("optionId")
        for option in self.options:
            if option.get("optionId") == chosen:
                return f"{chosen} ({option.get('kind', '')}: {option.get('name', '')})"
        return str(chosen or outcome.get("outcome"))


@dataclass
class Turn:
    number: int
    session: str
    request: Request
    prompt: str
    stop: str | None = None
    end: int | None = None
    ended: float | None = None
    updates: int = 0
    messages: dict[tuple[str, str], int] = field(default_factory=dict)
    """(target, id) of each message the turn changed, with the frame that first did."""
    tools: list[ToolCall] = field(default_factory=list)
    plans: list[tuple[int, float, list[Any]]] = field(default_factory=list)
    permissions: list[Permission] = field(default_factory=list)
    cancels: list[Cancel] = field(default_factory=list)

    @property
    def duration(self) -> float | None:
        return None if self.ended is None else self.ended - self.request.t


@dataclass
class Cancel:
    index: int
    t: float
    session: str
    turn: Turn | None

    @property
    def honoured(self) -> float | None:
        """Seconds from the cancel to the end of its turn."""
        ended = None if self.turn is None else self.turn.ended
        return None if ended is None else ended - self.t


@dataclass
class Session:
    id: str
    how: str
    index: int
    turns: list[Turn] = field(default_factory=list)
    current: Turn | None = None
    answered: Turn | None = None
    """v1: the last turn, while its answer is the session's last word."""
    outside: dict[tuple[str, str], int] = field(default_factory=dict)
    """Messages no turn was running for (a `session/load` replaying the history)."""
    tools: list[ToolCall] = field(default_factory=list)


@dataclass
class Problem:
    kind: str
    text: str
    frame: int | None
    level: str | None = None
    case: str | None = None
    quote: str | None = None


@dataclass
class Summary:
    edition: int = 1
    frames: int = 0
    until: float = 0.0
    """The time of the last frame."""
    sent: int = 0
    received: int = 0
    raw: int = 0
    sessions: dict[str, Session] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    tools: dict[tuple[str, str], ToolCall] = field(default_factory=dict)
    permissions: list[Permission] = field(default_factory=list)
    cancels: list[Cancel] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    state: ClientState | None = None

    @property
    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions.values() for turn in session.turns]

    def message_text(self, session: str, target: str, key: str) -> str:
        """A message as the client state holds it, as text (its text blocks joined)."""
        state = self.state.sessions.get(session) if self.state is not None else None
        entries = state.get(target) if state is not None else None
        entry = entries.get(key) if isinstance(entries, dict) else None
        return blocks_text(entry.get("content") if isinstance(entry, dict) else None)


def blocks_text(content: Any) -> str:
    """Content blocks as text: text blocks as they are, others as `[type]`."""
    blocks = content if isinstance(content, list) else [content] if content is not None else []
    parts = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" or (kind is None and "text" in block):
            parts.append(str(block.get("text", "")))
        elif kind == "resource_link":
            parts.append(f"[{block.get('name') or block.get('uri')}]")
        else:
            parts.append(f"[{kind}]")
    return "".join(parts)


def plan_entries(plan: Any) -> list[Any]:
    """A plan's entries: v1's `entries`, v2's `items` plan's, a v2 Markdown plan as one entry;
    none once removed."""
    if not isinstance(plan, dict):
        return []
    if plan.get("type") == "markdown":
        return [{"status": "markdown", "content": plan.get("content", "")}]
    entries = plan.get("entries")
    return list(entries) if isinstance(entries, list) else []
