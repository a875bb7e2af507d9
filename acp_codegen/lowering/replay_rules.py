"""The rules of how `session/resume` replays a session's history: what a session store answers
for an agent that has one (each runtime's session_replay), keyed by meaning, one per protocol.

v1's `session/resume` never replays (v1's `session/load` does, by the runtime's own rule); v2 has
no `session/load`, and its `session/resume` replays from a cursor the client names.
"""

from __future__ import annotations

from acp_codegen.ir import ResumeReplay
from acp_codegen.lowering.rule_needs import NOTIFICATION, REQUEST, Needs, Rule

REPLAY_RULES: tuple[Rule, ...] = (
    Rule(
        "v1",
        "session/resume answers without replaying the history",
        ResumeReplay(
            "session/resume",
            None,
            "ResumeSessionRequest: Resumes an existing session without returning previous "
            "messages (unlike `session/load`).",
        ),
        Needs(
            methods=(("session/resume", REQUEST),),
            quotes=(("ResumeSessionRequest", "without returning previous messages"),),
        ),
    ),
    Rule(
        "v2",
        "session/resume replays from the client's replayFrom, then marks the end and the state",
        ResumeReplay(
            "session/resume",
            "replayFrom",
            "ResumeSessionRequest.replayFrom: Omitted and `null` are equivalent, and the Agent "
            'MUST NOT replay previous conversation history. [...] Supplying `{ "type": '
            '"start" }` means the Agent MUST replay all retained conversation history before '
            "responding. Agents MUST reject unsupported cursor types or malformed cursor values "
            "with `-32602` (Invalid params). ReplayComplete: The Agent MUST send this exactly "
            "once [...] after the last replayed update for that session and before the "
            "response, even for an empty replay.",
            cursor_tag="type",
            start="start",
            unsupported=-32602,
            marker="replay_complete",
            # StateUpdate: "Resume MUST send a current-state snapshot after any replay": a
            # snapshot is sent, never replayed. `notice`: "not part of session history".
            not_history=("state_update", "notice"),
        ),
        Needs(
            methods=(("session/resume", REQUEST), ("session/update", NOTIFICATION)),
            fields=(("ResumeSessionRequest", "replayFrom"),),
            tags=(
                ("ReplayFrom", "type", "start"),
                ("SessionUpdate", "sessionUpdate", "replay_complete"),
                ("SessionUpdate", "sessionUpdate", "state_update"),
                ("SessionUpdate", "sessionUpdate", "notice"),
            ),
            quotes=(
                (
                    "ResumeSessionRequest",
                    "Omitted and `null` are equivalent, and the Agent MUST NOT replay previous "
                    "conversation history.",
                ),
                (
                    "ResumeSessionRequest",
                    "means the Agent MUST replay all retained conversation history before "
                    "responding.",
                ),
                (
                    "ResumeSessionRequest",
                    "Agents MUST reject unsupported cursor types or malformed cursor values with "
                    "`-32602` (Invalid params)",
                ),
                (
                    "ReplayComplete",
                    "The Agent MUST send this exactly once on a session for each "
                    "`session/resume` request with a `replayFrom` cursor, after the last replayed "
                    "update for that session and before the response, even for an empty replay.",
                ),
                (
                    "ReplayComplete",
                    "the Agent MUST hold live updates for the session during replay.",
                ),
                (
                    "ReplayComplete",
                    "The Agent MUST NOT send it when `replayFrom` is omitted or `null`",
                ),
                (
                    "ResumeSessionResponse",
                    "The Agent MUST send a current `state_update` after any requested history "
                    "replay and before this response, even without replay.",
                ),
                ("StateUpdate", "Resume MUST send a current-state snapshot after any replay"),
                ("SessionUpdate", "not part of session history"),
            ),
        ),
    ),
)
"""How `session/resume` replays, per protocol (`Behaviour.resume`)."""
