"""Loading and resuming a session (layer: case family): v1's `session/load` streams the history
back as `session/update`s before its answer, v1's `session/resume` resumes without that replay,
and v2's `session/resume` replays history only when `replayFrom` asks, ends a replay with one
`replay_complete`, and sends a current `state_update` before its answer.

Each case first runs a turn in a new session, then loads or resumes that session on the same
connection (whether a session outlives its process is the agent's affair, so only this case is
portable). An agent that does not advertise the method makes the case a skip.
"""

from __future__ import annotations

from typing import Any

from .behaviour import (
    agent_capabilities,
    at,
    call_seeing,
    kind_of,
    prompt_answer,
    request_said,
    said,
    supported,
    v1,
    worded_case,
)
from .cases import (
    Case,
    Check,
    Context,
    Failure,
    Outcome,
    Skip,
    describe,
    error_code,
    failed,
    passed,
)
from .data import EditionData, Quote
from .peer import Frame, NoAnswer
from .steps import initialize, new_session

TURN_PROMPT = "remember these words for the conformance suite"
"""The prompt of the turn that makes a session's history."""
TURN_WAIT = 10.0
"""Seconds the history's turn may take (v2: until its idle state update)."""
V1_LOAD = (
    "LoadSessionRequest",
    "Loads an existing session to resume a previous conversation. This method is only available "
    "if the agent advertises the `loadSession` capability. The agent should: - Restore the "
    "session context and conversation history - Connect to the specified MCP servers - Stream "
    "the entire conversation history back to the client via notifications",
)
V1_RESUME = (
    "ResumeSessionRequest",
    "Resumes an existing session without returning previous messages. This method is only "
    "available if the agent advertises the `sessionCapabilities.resume` capability. The agent "
    "should resume the session context, allowing the conversation to continue without replaying "
    "the message history (unlike `session/load`).",
)
V2_REPLAY = (
    "ReplayComplete",
    "The Agent MUST send this exactly once on a session for each `session/resume` request with "
    "a `replayFrom` cursor, after the last replayed update for that session and before the "
    "response, even for an empty replay.",
)
V2_NO_REPLAY = (
    "ResumeSessionRequest/properties/replayFrom",
    "Optional. Omitted and `null` are equivalent, and the Agent MUST NOT replay previous "
    "conversation history.",
)
V2_STATE = (
    "ResumeSessionResponse",
    "The Agent MUST send a current `state_update` after any requested history replay and before "
    "this response, even without replay.",
)
REPLAY_COMPLETE = "replay_complete"
STATE_UPDATE = "state_update"


def cases(edition: EditionData) -> list[Case]:
    if edition.prompt is None:
        return []
    if v1(edition):
        load = request_said(edition, *V1_LOAD)
        resume = request_said(edition, *V1_RESUME)
        return [
            _case(
                "sessions.load_replays_history",
                "session/load of a session with a finished turn streams its history as "
                "session/update before the answer",
                load,
                _load_replays,
                "the reading that the replay comes before the answer is the suite's own",
            ),
            _case(
                "sessions.resume_answered",
                "session/resume of a session with a finished turn is answered with a result",
                resume,
                _v1_resume,
            ),
        ]
    replay, no_replay, state = (
        said(edition, *V2_REPLAY),
        said(edition, *V2_NO_REPLAY),
        said(edition, *V2_STATE),
    )
    return [
        _case(
            "sessions.resume_replay_complete_once_before_answer",
            'session/resume with replayFrom {"type": "start"} sends one replay_complete, '
            "before its answer",
            replay,
            _replayed,
        ),
        _case(
            "sessions.resume_without_replay_from_replays_nothing",
            "session/resume without replayFrom replays no history and sends no replay_complete",
            no_replay,
            _not_replayed,
        ),
        _case(
            "sessions.resume_state_update_before_answer",
            "session/resume sends the session's state_update before its answer",
            state,
            _state_before_answer,
        ),
    ]


def _case(case_id: str, title: str, quote: Quote, check: Check, reading: str | None = None) -> Case:
    return worded_case(case_id, title, quote, check, reading=reading, budget=TURN_WAIT)


async def _with_history(ctx: Context, capability: tuple[str, ...], name: str) -> str:
    """A session with one finished turn, once the agent advertises `capability`: its id."""
    result = await initialize(ctx)
    if not supported(at(agent_capabilities(ctx.edition, result), *capability)):
        where = ".".join(capability)
        raise Skip(f"the agent does not advertise {where} ({name})")
    ctx.initialized = result
    session_id = await new_session(ctx)
    block = {"type": "text", "text": TURN_PROMPT}
    answer = await prompt_answer(ctx, session_id, [block], wait=TURN_WAIT)
    if "result" not in answer:
        raise Failure(f"the history's prompt was answered with {describe(answer)}")
    if not v1(ctx.edition):
        await _idle(ctx, session_id)
    return session_id


async def _idle(ctx: Context, session_id: str) -> None:
    """Until the session reports `idle` (v2: its turn's work ended)."""
    prompt = ctx.edition.prompt
    assert prompt is not None and prompt.lifecycle is not None
    life = prompt.lifecycle

    def idle(frame: Frame) -> bool:
        update = at(frame.message, "params", "update")
        return (
            type(update) is dict
            and at(frame.message, "params", "sessionId") == session_id
            and update.get(life.update_tag) == life.update_value
            and update.get(life.state_tag) == life.idle
        )

    try:
        await ctx.peer.wait_for(idle, TURN_WAIT, f"the {life.idle} state_update of the turn")
    except NoAnswer as error:
        raise Skip(f"the history's turn did not end: {error}") from None


def _setup(ctx: Context, session_id: str) -> dict[str, Any]:
    return {"sessionId": session_id, "cwd": ctx.workdir, "mcpServers": []}


async def _load_replays(ctx: Context) -> Outcome:
    session_id = await _with_history(ctx, ("loadSession",), "session/load")
    answer, before = await call_seeing(ctx, "session/load", _setup(ctx, session_id), session_id)
    if "result" not in answer:
        return failed(f"session/load of the session was answered with {describe(answer)}")
    if not before:
        return failed("session/load was answered with no session/update of the session before it")
    kinds = sorted({kind_of(f) or "?" for f in before})
    return passed(f"{len(before)} updates before the answer ({', '.join(kinds)})")


async def _v1_resume(ctx: Context) -> Outcome:
    capability = ("sessionCapabilities", "resume")
    session_id = await _with_history(ctx, capability, "session/resume")
    answer, before = await call_seeing(ctx, "session/resume", _setup(ctx, session_id), session_id)
    if "result" not in answer:
        return failed(f"session/resume of the session was answered with {describe(answer)}")
    return passed(f"answered with a result ({len(before)} updates before it)")


async def _v2_resume(
    ctx: Context, replay_from: dict[str, Any] | None
) -> tuple[dict[str, Any], list[Any]]:
    session_id = await _with_history(ctx, ("session",), "session/resume")
    wire = _setup(ctx, session_id)
    if replay_from is not None:
        wire["replayFrom"] = replay_from
    return await call_seeing(ctx, "session/resume", wire, session_id)


async def _replayed(ctx: Context) -> Outcome:
    answer, before = await _v2_resume(ctx, {"type": "start"})
    if error_code(answer) == -32602:
        return passed("the agent refused the cursor with -32602 (the text lets it)")
    if "result" not in answer:
        return failed(f"session/resume was answered with {describe(answer)}")
    marks = [n for n, f in enumerate(before) if kind_of(f) == REPLAY_COMPLETE]
    if len(marks) != 1:
        return failed(f"{len(marks)} {REPLAY_COMPLETE} updates before the answer (not one)")
    return passed(f"{marks[0]} replayed updates, then {REPLAY_COMPLETE}, then the answer")


async def _not_replayed(ctx: Context) -> Outcome:
    answer, before = await _v2_resume(ctx, None)
    if "result" not in answer:
        return failed(f"session/resume was answered with {describe(answer)}")
    prompt = ctx.edition.prompt
    assert prompt is not None and prompt.lifecycle is not None
    history = {prompt.lifecycle.user_message, prompt.lifecycle.agent_chunk, REPLAY_COMPLETE}
    replayed = [kind_of(f) for f in before if kind_of(f) in history]
    if replayed:
        return failed(f"without replayFrom, the agent sent {', '.join(map(str, replayed))}")
    return passed(f"{len(before)} updates before the answer, none of them history")


async def _state_before_answer(ctx: Context) -> Outcome:
    answer, before = await _v2_resume(ctx, None)
    if "result" not in answer:
        return failed(f"session/resume was answered with {describe(answer)}")
    if not any(kind_of(f) == STATE_UPDATE for f in before):
        return failed(f"no {STATE_UPDATE} of the session before the session/resume answer")
    return passed()
