"""Sessions (layer: agent state shared by both editions, standard library only): what a
session keeps (its directory, MCP servers recorded and never started, its configuration, its
history for replay) and the store `session/list` reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .checks import Invalid
from .wire import RpcError

RESOURCE_NOT_FOUND = -32002
WORD_PAUSE = 0.05
"""Seconds between two streamed words: the suite's long prompt lasts while it cancels it."""

MODES = [
    {"id": "default", "name": "Default", "description": "Echo the prompt's words"},
    {"id": "careful", "name": "Careful", "description": "The same, said carefully"},
]
STYLES = [{"value": "plain", "name": "Plain"}, {"value": "upper", "name": "Upper case"}]
AUTH_METHOD = {"id": "stdlib-login", "name": "Log in", "description": "Always succeeds"}


@dataclass
class Session:
    session_id: str
    cwd: str
    mcp_servers: list[Any]
    updated: float = field(default_factory=time.time)
    mode: str = "default"
    style: str = "plain"
    history: list[tuple[str, str, list[dict[str, Any]]]] = field(default_factory=list)
    """(who: user or agent, message id, content blocks), in order."""
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    work: asyncio.Task[Any] | None = None
    """The running turn (v1) or foreground work (v2)."""

    def touch(self) -> None:
        self.updated = time.time()

    def say(self, word: str) -> str:
        return word.upper() if self.style == "upper" else word

    def info(self) -> dict[str, Any]:
        stamp = datetime.fromtimestamp(self.updated, timezone.utc)
        title = next((w for who, _, b in self.history if who == "user" for w in _text(b)), None)
        found: dict[str, Any] = {
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "updatedAt": stamp.isoformat().replace("+00:00", "Z"),
        }
        if title:
            found["title"] = title[:60]
        return found


def _text(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"] for b in blocks if b.get("type") == "text" and b["text"].strip()]


class Store:
    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}

    def get(self, session_id: str) -> Session:
        found = self.sessions.get(session_id)
        if found is None:
            raise RpcError(
                RESOURCE_NOT_FOUND,
                f"Resource not found: session {session_id}",
                {"sessionId": session_id},
            )
        return found

    def listed(self, cwd: str | None) -> list[dict[str, Any]]:
        chosen = [s for s in self.sessions.values() if cwd is None or s.cwd == cwd]
        return [s.info() for s in sorted(chosen, key=lambda s: s.updated, reverse=True)]


def choose_style(session: Session, config_id: str, value: Any, path: str = "") -> None:
    """Set the one config option, `style` (a select): -32602 for another id or value, and the
    configuration is left unchanged."""
    if config_id != "style":
        raise Invalid(f"{path}/configId", f"no config option {config_id!r}")
    if value not in [s["value"] for s in STYLES]:
        raise Invalid(f"{path}/value", f"{value!r} is not a value of style")
    session.style = value


async def pause(event: asyncio.Event, seconds: float = WORD_PAUSE) -> bool:
    """Wait `seconds`, or until `event` is set; whether it is set."""
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)
    return event.is_set()
