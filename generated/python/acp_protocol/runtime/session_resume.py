# Copied by acp-codegen from templates/python/runtime/session_resume.py. Do not edit here:
# edit the source, then run `make generate`.

"""What a session store sends for `session/resume` where the edition's resume replays from a
cursor the client names (ACP v2), as pure functions of the edition's rule (`ResumeReplay`).

Layer: typed layer (what `session_replay` sends; the store corpus runs the same functions).

The rule's text (v2 schema, `ResumeSessionRequest.replayFrom`): "Omitted and `null` are
equivalent, and the Agent MUST NOT replay previous conversation history. [...] Supplying
`{ "type": "start" }` means the Agent MUST replay all retained conversation history before
responding. Agents MUST reject unsupported cursor types or malformed cursor values with
`-32602` (Invalid params), rather than substituting another cursor or resuming without
replay." The store keeps no position but the start, so every other cursor is unsupported.

`ReplayComplete`: "The Agent MUST send this exactly once on a session for each `session/resume`
request with a `replayFrom` cursor, after the last replayed update for that session and before
the response, even for an empty replay." What is not history (`not_history`: the state updates,
"Resume MUST send a current-state snapshot after any replay"; notices, "not part of session
history") is neither recorded nor replayed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .behaviour import ResumeReplay, StateUpdates
from .errors import InvalidParams


def replay_wanted(rule: ResumeReplay, params: Mapping[str, Any]) -> bool:
    """Whether the resume request (wire params) asks for a replay; `InvalidParams` (the rule's
    code) for a cursor the store cannot serve."""
    if rule.cursor is None:
        return False
    cursor = params.get(rule.cursor)
    if cursor is None:  # "Omitted and `null` are equivalent": no replay
        return False
    if isinstance(cursor, Mapping) and cursor.get(rule.cursor_tag) == rule.start:
        return True
    tag = cursor.get(rule.cursor_tag) if isinstance(cursor, Mapping) else None
    raise InvalidParams(
        f"unsupported {rule.cursor}: the session store replays from "
        f"{{{rule.cursor_tag!r}: {rule.start!r}}} only",
        data={rule.cursor: cursor, "supported": [{rule.cursor_tag: rule.start}], "type": tag},
        code=rule.unsupported,
    )


def is_history(rule: ResumeReplay | None, update: Any) -> bool:
    """Whether a session update is part of the history a replay sends (`not_history` aside)."""
    if rule is None or not rule.not_history or not isinstance(update, Mapping):
        return True
    return update.get("sessionUpdate") not in rule.not_history


def replayed(rule: ResumeReplay, updates: Iterable[Any]) -> list[Any]:
    """The updates a replay from the start sends: the retained history, then the marker."""
    history = [update for update in updates if is_history(rule, update)]
    return [*history, {"sessionUpdate": rule.marker}]


def state_snapshot(states: StateUpdates, state: str) -> dict[str, Any]:
    """The current `state_update` a resume sends after any replay and before its response
    (`ResumeSessionResponse`: "The Agent MUST send a current `state_update` after any requested
    history replay and before this response, even without replay")."""
    return {states.update_tag: states.update_value, states.state_tag: state}
