# Copied by acp-codegen from templates/python/conformance/output_talk.py. Do not edit here:
# edit the source, then run `make generate`.

"""The conversation the `output.*` cases judge (layer: cases): `initialize` advertising no
client capability that gates anything (`clientCapabilities: {}`), `session/new`, one prompt
turn with the suite's prompt, then the program's output until it is quiet.

One conversation per run (its folder) and edition: the first `output.*` case to start holds
it on its own program; every other `output.*` case waits for it and judges the same frames (its
trace shows them in place of what its own idle program wrote). A case is one rule; the conversation
is the evidence, so one run of it serves them all (a fresh program per case would cost a start
each).
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass

from .cases import Context, NotJudged
from .output_schema import id_key
from .peer import Frame, NoAnswer
from .steps import initialize_wire, new_session, params, prompt_params

PROMPT = "hello from the conformance suite"
"""The suite's prompt (the one `prompt.turn_ends_with_a_stop_reason` sends)."""
QUIET = 0.5
"""Seconds without output after which the conversation is over (once the prompt is answered)."""
SETTLE = 3.0
"""Seconds at most the suite listens after the prompt's answer (an agent that never falls
quiet: its output so far is judged)."""


@dataclass(frozen=True, slots=True)
class Conversation:
    frames: tuple[Frame, ...]
    """Every frame both ways, in order."""
    asked: dict[str, str]
    """The `id_key` of each request the suite sent → its method."""
    sessions: frozenset[str]
    """The session ids the agent created (`session/new` answered)."""

    @property
    def received(self) -> list[Frame]:
        return [f for f in self.frames if f.dir == "received"]


_RUNS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str], asyncio.Future[Conversation]]
] = weakref.WeakKeyDictionary()
"""The conversations of the runs in each event loop, by the run's folder (`runner.run` makes
one per run) and the edition."""


async def conversation(ctx: Context) -> Conversation:
    """The run's conversation: held now on `ctx`'s program by the first case that asks, awaited
    by the others (its frames are then their transcript, for their report)."""
    loop = asyncio.get_running_loop()
    runs = _RUNS.setdefault(loop, {})
    key = (ctx.workdir, ctx.edition.key)
    held = runs.get(key)
    if held is not None:
        talk = await asyncio.shield(held)
        # its trace shows the frames judged (what its own idle program wrote is no evidence)
        ctx.peer.transcript[:] = talk.frames
        return talk
    future: asyncio.Future[Conversation] = loop.create_future()
    runs[key] = future
    try:
        talk = await _converse(ctx)
    except Exception as error:
        failure = NotJudged(f"the conversation of output.* failed: {error}")
        future.set_exception(failure)
        future.exception()  # retrieved: no warning when no case waits
        raise failure from None
    except BaseException:  # the holding case ran out of time or was cancelled
        future.set_exception(NotJudged("the conversation of output.* ran out of time"))
        future.exception()
        raise
    future.set_result(talk)
    return talk


async def _converse(ctx: Context) -> Conversation:
    prompt = ctx.edition.prompt
    if prompt is None:
        raise NotJudged("the edition has no prompt turn")
    method = ctx.edition.negotiation.method
    wire = initialize_wire(ctx.edition, ctx.models, ctx.edition.protocol_version)
    wire["clientCapabilities"] = {}
    try:
        answer = await ctx.call(method, params(ctx, method, wire))
        if type(answer.get("result")) is not dict:
            raise NotJudged(f"{method} was not answered with a result")
        session_id = await new_session(ctx)
        request_id = ctx.next_id()
        ctx.peer.request(request_id, prompt.method, prompt_params(ctx, session_id, PROMPT))
        await ctx.peer.answer(request_id, ctx.timeout, prompt.method)
    except NoAnswer as error:
        raise NotJudged(str(error)) from None
    listened = 0.0
    while listened < SETTLE and not ctx.peer.ended:
        if not await ctx.peer.quiet(QUIET):
            break
        listened += QUIET
    asked = {}
    for frame in ctx.peer.transcript:
        message = frame.message
        sent = frame.dir == "sent" and message is not None
        if sent and message is not None and type(message.get("method")) is str and "id" in message:
            asked[id_key(message["id"])] = message["method"]
    return Conversation(tuple(ctx.peer.transcript), asked, frozenset({session_id}))
