"""What every agent's field tests check the same way, whatever the agent: a Ctrl-C during a long
answer, and a v2 client answered version 1. Each takes the run (`Turn`) and asserts."""

from __future__ import annotations

from tests.field.turns import Turn

LAST_WORD = "word399"
"""The last word of the long answer the mocks stream (`LONG`): never printed after a Ctrl-C."""


def cancelled_by_ctrl_c(turn: Turn, stop_reason: str | None) -> None:
    """Ctrl-C during a long answer: the client sent `session/cancel`, printed `[cancelled]` and
    exited 0 without a traceback; the turn ended `cancelled` (`stop_reason`: v1 the prompt's
    answer, v2 the idle state's) before its last word; no process of the agent is left."""
    assert turn.returncode == 0, turn.describe()
    assert "[cancelled]" in turn.stdout, turn.describe()
    assert LAST_WORD not in turn.stdout
    assert turn.sent("session/cancel"), "the client never sent session/cancel"
    assert stop_reason == "cancelled"
    assert "Traceback" not in turn.stderr
    assert turn.survivors == []


def refused_as_version_1(turn: Turn) -> None:
    """A v2 client answered `protocolVersion: 1` (an agent that speaks only v1, as it may) stops
    before `session/new`, saying so in one line, no traceback, no process left."""
    (initialize,) = turn.sent("initialize")
    assert initialize["params"]["protocolVersion"] == 2
    assert turn.answer_to(initialize, "received")["result"]["protocolVersion"] == 1
    assert turn.returncode != 0 and "answered 1" in turn.stderr, turn.describe()
    assert "Traceback" not in turn.stderr
    assert turn.sent("session/new") == []
    assert turn.survivors == []
