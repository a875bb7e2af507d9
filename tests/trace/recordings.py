"""The field's recordings (tests/field/recordings: whole turns of production agents, v1 and v2)
as test data for `trace view`, and what each holds, read straight from its lines (not through
the code under test): the expectations of tests/trace/test_view*.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

RECORDINGS = Path(__file__).parents[1] / "field" / "recordings"


@dataclass
class Held:
    """What one recording holds."""

    path: Path
    edition: int = 1
    frames: list[dict[str, Any]] = field(default_factory=list)
    """Every frame object, in order (index = the frame's number)."""

    def messages(self, direction: str) -> list[tuple[int, dict[str, Any]]]:
        return [
            (n, f["json"])
            for n, f in enumerate(self.frames)
            if f["dir"] == direction and isinstance(f.get("json"), dict)
        ]

    def requests(self, direction: str, method: str) -> list[tuple[int, dict[str, Any]]]:
        return [
            (n, m) for n, m in self.messages(direction) if m.get("method") == method and "id" in m
        ]

    def answer(self, direction: str, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The answer to `request` (sent in `direction`), from the other side."""
        other = "received" if direction == "sent" else "sent"
        return next(
            (
                (n, m)
                for n, m in self.messages(other)
                if "method" not in m and m.get("id") == request["id"]
            ),
            (-1, {}),
        )

    def updates(self, kind: str | None = None) -> list[tuple[int, dict[str, Any]]]:
        return [
            (n, m["params"]["update"])
            for n, m in self.messages("received")
            if m.get("method") == "session/update"
            and (kind is None or m["params"]["update"].get("sessionUpdate") == kind)
        ]

    def tool_call_ids(self) -> set[str]:
        """Every tool call the agent told of: in an update, or as a permission's subject."""
        found = {u["toolCallId"] for _, u in self.updates() if "toolCallId" in u}
        for _, request in self.requests("received", "session/request_permission"):
            params = request["params"]
            tool = params.get("toolCall") or params.get("subject", {}).get("toolCall") or {}
            if "toolCallId" in tool:
                found.add(tool["toolCallId"])
        return found

    def t(self, index: int) -> float:
        return float(self.frames[index]["t"])


def read(path: Path) -> Held:
    held = Held(path)
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if "dir" in record:
            held.frames.append(record)
    for _, request in held.requests("sent", "initialize")[:1]:
        answer = held.answer("sent", request)[1].get("result")
        held.edition = answer.get("protocolVersion", 1) if isinstance(answer, dict) else 1
    return held


@cache
def every() -> tuple[Held, ...]:
    return tuple(read(path) for path in sorted(RECORDINGS.glob("*.jsonl")))


def one(edition: int, *needs: str) -> Held:
    """The first recording of `edition` holding each of `needs` (a method sent or received)."""
    for held in every():
        methods = {f["json"].get("method") for f in held.frames if isinstance(f.get("json"), dict)}
        if held.edition == edition and all(need in methods for need in needs):
            return held
    raise LookupError(f"no v{edition} recording in {RECORDINGS} with {needs}")
