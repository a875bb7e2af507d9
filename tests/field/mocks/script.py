"""What a mocked model answers: a turn is text (streamed in several deltas), a tool use, or a long
answer to cancel. Shared by every vendor mock; each renders it in its own wire format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    """Text streamed as `deltas` (each one delta event), then the turn ends `end_turn`."""

    deltas: tuple[str, ...]
    pause: float = 0.0
    """Seconds between deltas: a long answer is one a client can cancel in the middle."""

    @property
    def text(self) -> str:
        return "".join(self.deltas)


@dataclass(frozen=True)
class ToolUse:
    """The model calls one tool (`name` with `arguments`) and waits for its result."""

    name: str
    arguments: dict[str, Any]
    call_id: str = "toolu_01"
    preamble: str = ""


Reply = Text | ToolUse


def words(text: str, pause: float = 0.0) -> Text:
    """`text` streamed a word at a time."""
    parts = text.split(" ")
    return Text(tuple(p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)), pause)


@dataclass
class Script:
    """The replies of a conversation, in order. A model request is answered by where the
    conversation it carries stands: with N answers of the model in it, reply N (so a request the
    agent repeats gets the same answer); past the end, and for an agent's side requests (a title,
    a suggestion), `fallback`. Every request body is kept in `requests`."""

    replies: list[Reply]
    fallback: Reply = field(default_factory=lambda: words("OK."))
    requests: list[dict[str, Any]] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)
    """Every other request the agent made of the mock (`METHOD /path`), answered as its vendor's
    API would answer a path it does not serve."""

    def reply(self, answered: int) -> Reply:
        return self.replies[answered] if answered < len(self.replies) else self.fallback
