"""Half-close beyond a pending prompt (layer: case family): requests of every kind written at
once, then the agent's stdin closed; every request read before the end of input is answered.

prompt_turn's `eof.pending_prompt_answered` checks one prompt; this case checks the rest of
what an agent may hold at that moment: a prompt, a new session being made, requests it answers
at once with an error (an unknown method, refused params), all read before EOF. Its level is
its quote's words (levels.py): JSON-RPC 2.0's "MUST reply", which no text lifts for a client
that closed its end (it can still read what the agent writes).
"""

from __future__ import annotations

from typing import Any

from .cases import Case, Context, Outcome, failed, passed
from .data import EditionData
from .levels import level_of
from .peer import NoAnswer
from .prompt_turn import EOF_ANSWER
from .steps import initialize, new_session, params, prompt_params, running_prompt

UNKNOWN = "_conformance/no_such_method"


def cases(edition: EditionData) -> list[Case]:
    if edition.prompt is None:
        return []
    return [
        Case(
            "eof.every_request_read_is_answered",
            f"{edition.prompt.method}, session/new, an unknown method and refused params, all "
            "written then stdin closed: every one is answered",
            level_of(EOF_ANSWER.text),
            EOF_ANSWER,
            _every_request,
        )
    ]


async def _every_request(ctx: Context) -> Outcome:
    prompt = ctx.edition.prompt
    assert prompt is not None
    await initialize(ctx)
    session_id = await new_session(ctx)
    sent: dict[int, str] = {}

    def send(method: str, wire: Any, what: str) -> None:
        request_id = ctx.next_id()
        ctx.peer.request(request_id, method, wire)
        sent[request_id] = what

    send(prompt.method, prompt_params(ctx, session_id, running_prompt()), prompt.method)
    fresh = params(ctx, "session/new", {"cwd": ctx.workdir, "mcpServers": []})
    send("session/new", fresh, "session/new")
    for n in range(3):
        send(UNKNOWN, {"n": n}, f"{UNKNOWN} #{n + 1}")
    send("session/new", {}, "session/new with params {} (refused)")
    ctx.peer.close_input()
    deadline = ctx.timeout
    missing = []
    for request_id, what in sent.items():
        try:
            await ctx.peer.answer(request_id, deadline, what)
        except NoAnswer:  # named below, with the others not answered
            missing.append(what)
            deadline = 0.1
    if missing:
        return failed(f"not answered after EOF: {', '.join(missing)} (of {len(sent)} requests)")
    return passed(f"all {len(sent)} requests answered")
