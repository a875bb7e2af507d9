"""Client cases on the client's own messages (layer: case family, client side): `initialize`
first and in the schema's shape, a version the client does not speak ends the connection, the
session and prompt requests fit their schemas, the agent's streamed words are shown in order, the
client ends after its turn, and Ctrl-C (`--sigint`) cancels the turn with `session/cancel`.

What a client shows on its stdout, and how it ends, is no rule of the protocol: those cases are
informative (they follow the starter clients' behaviour: one prompt, its reply printed, exit 0).
The cases are the same for every edition: the scripted agent (client_agent) ends a v1 turn with
the prompt's answer and a v2 turn with its `idle` state update; v2's own client cases are
client_lifecycle's.
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

from ..runtime.validators import validator_for
from .cases import Case, Context, Outcome, Skip, failed, passed, skipped
from .client_agent import (
    SESSION_ID,
    WORDS,
    ClientRun,
    agent_left_over,
    client_request,
    closed_by_client,
    end_turn,
    exit_status,
    handshake,
    initialize_result,
    of,
    prompted,
    reply,
    turn,
    update,
)
from .data import EditionData, Quote
from .levels import SUITES_READING, level_of
from .peer import NoAnswer, is_notification

UNSPOKEN = 1000
"""Added to the version the client asks for: a version the agent answers that no client speaks."""
SIGINT_AFTER = 3
"""Updates the suite's agent streams before it sends the client SIGINT."""
WORD_PAUSE = 0.05

SCHEMA_SHAPE = (
    " (the suite's reading: a message the schema refuses is not the protocol's; an agent answers "
    "such params -32602)"
)
OWN_BEHAVIOUR = Quote(
    "A client started as `client [--prompt TEXT] -- AGENT…` sends one prompt, prints the agent's "
    "message as it streams, and exits 0 when the turn ends, leaving no agent behind (the suite's "
    "starter client protocol; the schema says nothing of a client's output).",
    "acp-codegen starter clients (docs/install.md, Starters)",
)
CTRL_C = Quote(
    "Ctrl-C during a turn cancels it the protocol's way: `session/cancel`, answered with the "
    "`cancelled` stop reason (the starter client protocol, `--sigint`); the schema: "
    '"Notification to cancel ongoing operations for a session."',
    "acp-codegen starter clients (docs/install.md, Starters); "
    "schema.json#/$defs/CancelNotification",
)


def _model_quote(
    edition: EditionData, models: ModuleType, method: str, extra: str, why: str = ""
) -> Quote:
    """The first paragraph of the method's params model's description (`why`: what the source
    says of an informative case's level)."""
    entry = edition.method(method)
    doc = getattr(getattr(models, entry.params), "__doc__", "") if entry else ""
    first = " ".join((doc or method).split("\n\n")[0].split())
    name = entry.params if entry else method
    return Quote(first + extra, f"{edition.source}#/$defs/{name}" + (f" ({why})" if why else ""))


def ctrl_c(edition: EditionData, models: ModuleType) -> Quote:
    """The Ctrl-C cases' quote: the starter protocol, and the schema's cancel notification."""
    prompt = edition.prompt
    assert prompt is not None
    entry = edition.method(prompt.cancel, "notification")
    if entry is None or prompt.answer == "completion":
        return CTRL_C
    doc = " ".join(
        (getattr(getattr(models, entry.params), "__doc__", "") or "").split("\n\n")[0].split()
    )
    return Quote(
        f"Ctrl-C during a turn cancels it the protocol's way: `{prompt.cancel}`, the work then "
        f"ending with an idle state update, stop reason `{prompt.cancelled}` (the starter client "
        f'protocol, `--sigint`); the schema: "{doc}"',
        f"acp-codegen starter clients (docs/install.md, Starters); "
        f"{edition.source}#/$defs/{entry.params}",
    )


def cases(edition: EditionData, models: ModuleType) -> list[Case]:
    prompt = edition.prompt
    if prompt is None:
        return []
    n = edition.negotiation
    capabilities = capabilities_field(edition, models)
    found = [
        Case(
            "client.initialize.params_fit_the_schema",
            f"the client's {n.method} asks {n.field} {edition.protocol_version} and fits the "
            f"schema ({capabilities} sent, or the schema's default)",
            "informative",
            _model_quote(edition, models, n.method, SCHEMA_SHAPE, SUITES_READING),
            _initialize_shape,
        ),
        Case(
            "client.initialize.comes_first",
            f"the client's first message is {n.method}",
            "informative",
            _model_quote(edition, models, n.method, ""),
            _initialize_first,
        ),
        Case(
            "client.negotiation.unspoken_version_disconnects",
            f"answered a {n.field} it does not speak, the client disconnects",
            level_of(n.quote.text),
            n.quote,
            _unspoken_version,
        ),
        Case(
            "client.negotiation.unspoken_version_one_line",
            "answered a version it does not speak, the client exits nonzero with a message, "
            "no traceback",
            "informative",
            OWN_BEHAVIOUR,
            _one_line,
        ),
        Case(
            "client.prompt.params_fit_the_schema",
            f"session/new and {prompt.method} fit their schemas, the prompt in the session "
            "the agent gave",
            "informative",
            _model_quote(edition, models, prompt.method, SCHEMA_SHAPE, SUITES_READING),
            _prompt_shape,
        ),
        Case(
            "client.prompt.sends_the_prompt_text",
            f"the {prompt.method} carries the text given as {{prompt}}",
            "informative",
            OWN_BEHAVIOUR,
            _prompt_text,
        ),
        Case(
            "client.prompt.shows_the_words_in_order",
            "the words of the turn's agent_message_chunk updates are printed in order",
            "informative",
            OWN_BEHAVIOUR,
            _words_shown,
        ),
        Case(
            "client.prompt.exits_after_the_turn",
            "the client exits 0 once its turn ends, and leaves no agent process",
            "informative",
            OWN_BEHAVIOUR,
            _exits_after_turn,
        ),
        Case(
            "client.cancel.sigint_sends_session_cancel",
            f"Ctrl-C during a turn sends {prompt.cancel} for the session (--sigint)",
            "informative",
            ctrl_c(edition, models),
            _sigint_cancels,
            budget=3.0,
        ),
        Case(
            "client.cancel.exits_after_the_cancelled_turn",
            f"after Ctrl-C and the {prompt.cancelled!r} stop reason, the client exits 0 and "
            "leaves no agent process (--sigint)",
            "informative",
            ctrl_c(edition, models),
            _sigint_exits,
            budget=8.0,
        ),
    ]
    return found


def capabilities_field(edition: EditionData, models: ModuleType) -> str:
    """The wire name of the `initialize` params field holding the client's capabilities (v1
    `clientCapabilities`, v2 `capabilities`): the field typed `ClientCapabilities`."""
    entry = edition.method(edition.negotiation.method)
    fields = getattr(getattr(models, entry.params), "model_fields", {}) if entry else {}
    for name, info in fields.items():
        if "ClientCapabilities" in str(info.annotation):
            return str(info.alias or name)
    return "clientCapabilities"


def fits(run: ClientRun, method: str, message: dict[str, Any]) -> str | None:
    entry = run.edition.method(method)
    assert entry is not None
    try:
        validator_for(getattr(run.models, entry.params))(message.get("params"))
    except ValueError as error:
        return f"its {method} params do not fit {entry.params}: {str(error).splitlines()[0]}"
    return None


async def _initialize_shape(ctx: Context) -> Outcome:
    run = of(ctx)
    n = run.edition.negotiation
    request = await client_request(run, n.method)
    reply(run, request, initialize_result(run))
    if (why := fits(run, n.method, request)) is not None:
        return failed(why)
    sent = request["params"]
    if sent.get(n.field) != run.edition.protocol_version:
        return failed(
            f"it asks {n.field} {sent.get(n.field)!r}, not {run.edition.protocol_version}"
        )
    # The capabilities field has a default in the schema (no capability): omitting it is valid.
    capabilities = capabilities_field(run.edition, run.models)
    told = sent.get(capabilities, "omitted (the schema's default)")
    return passed(f"{n.field} {sent[n.field]!r}, {capabilities} {told}")


async def _initialize_first(ctx: Context) -> Outcome:
    run = of(ctx)
    n = run.edition.negotiation
    first = await run.peer.wait_for(lambda f: True, run.timeout, "the client's first message")
    message = first.message or {}
    if message.get("method") != n.method:
        return failed(f"the first message is {first.value!r}, not {n.method}")
    return passed()


async def _unspoken_version(ctx: Context) -> Outcome:
    run = of(ctx)
    n = run.edition.negotiation
    request = await client_request(run, n.method)
    asked = request.get("params", {}).get(n.field) if type(request.get("params")) is dict else None
    version = (asked if type(asked) is int else run.edition.protocol_version) + UNSPOKEN
    reply(run, request, initialize_result(run, version))
    try:
        frame = await run.peer.wait_for(
            lambda f: f.message is not None and "method" in f.message,
            run.timeout,
            "a request after the version",
            start=run.seen,
        )
        return failed(f"answered {n.field} {version}, the client went on: {frame.value}")
    except NoAnswer:
        pass
    if not await closed_by_client(run, 0):
        return failed(f"answered {n.field} {version}, the client kept the connection open")
    return passed(f"answered {n.field} {version}, it disconnected")


async def _one_line(ctx: Context) -> Outcome:
    run = of(ctx)
    n = run.edition.negotiation
    request = await client_request(run, n.method)
    version = run.edition.protocol_version + UNSPOKEN
    reply(run, request, initialize_result(run, version))
    code = await run.client.exit_within(run.timeout)
    if code is None:
        return failed(f"answered {n.field} {version}, the client did not exit")
    lines = [line for line in run.client.errors().splitlines() if line.strip()]
    if code == 0:
        return failed(f"answered {n.field} {version}, the client exited 0")
    if not lines:
        return failed(f"exit status {code}, but nothing said on stderr")
    if any(marker in run.client.errors() for marker in ("Traceback", "panic:", "    at ")):
        return failed(f"exit status {code} with a traceback: {lines[-1]!r}")
    return passed(f"exit status {code}: {lines[-1]!r}")


async def _prompt_shape(ctx: Context) -> Outcome:
    run = of(ctx)
    _, new = await handshake(run)
    prompt = run.edition.prompt
    assert prompt is not None
    request = await client_request(run, prompt.method)
    end_turn(run, request)
    for method, message in (("session/new", new), (prompt.method, request)):
        if (why := fits(run, method, message)) is not None:
            return failed(why)
    session = request["params"].get("sessionId")
    if session != SESSION_ID:
        return failed(f"the prompt names session {session!r}, session/new gave {SESSION_ID!r}")
    return passed()


async def _prompt_text(ctx: Context) -> Outcome:
    run = of(ctx)
    if not run.has_prompt:
        return skipped("neither the client's command line nor --stdin holds {prompt}")
    request = await prompted(run)
    end_turn(run, request)
    blocks = request.get("params", {}).get("prompt", [])
    texts = [b.get("text", "") for b in blocks if type(b) is dict and b.get("type") == "text"]
    if not any(run.prompt in text for text in texts):
        return failed(f"no text block holds {run.prompt!r}: {texts!r}")
    return passed()


async def _words_shown(ctx: Context) -> Outcome:
    run = of(ctx)
    await turn(run)
    await exit_status(run)
    out = run.client.output()
    at = 0
    for word in WORDS:
        found = out.find(word, at)
        if found < 0:
            return failed(f"{word!r} is not printed after the words before it: {out[-200:]!r}")
        at = found + len(word)
    return passed()


async def _exits_after_turn(ctx: Context) -> Outcome:
    run = of(ctx)
    await turn(run)
    code = await exit_status(run)
    if code != 0:
        return failed(f"exit status {code} after the turn ended")
    if await agent_left_over(run):
        return failed("the agent it started still runs after it exited")
    return passed()


async def _cancel_turn(run: ClientRun) -> tuple[bool, str]:
    """A turn streaming until the client cancels it; SIGINT to the client after a few updates.
    (True, how) when `session/cancel` came, else (False, what the client did instead)."""
    if not run.sigint:
        raise Skip("needs --sigint (the client cancels its turn on Ctrl-C)")
    prompt = run.edition.prompt
    assert prompt is not None
    request = await prompted(run)
    start = len(run.peer.received)
    for n in range(400):
        update(run, f"{n} ")
        if n == SIGINT_AFTER:
            run.client.sigint()
        await asyncio.sleep(WORD_PAUSE)
        cancel = [f for f in run.peer.received[start:] if is_notification(f, prompt.cancel)]
        if cancel:
            params = cancel[0].message.get("params") if cancel[0].message else None
            if type(params) is not dict or params.get("sessionId") != SESSION_ID:
                return False, f"{prompt.cancel} for another session: {params!r}"
            end_turn(run, request, prompt.cancelled)
            return True, ""
        if run.peer.ended:
            return False, "the client closed the agent's input instead of sending session/cancel"
        if run.client.process.poll() is not None:
            return False, f"the client exited ({run.client.process.poll()}) without {prompt.cancel}"
    return False, f"no {prompt.cancel} within {400 * WORD_PAUSE:g} s of Ctrl-C"


async def _sigint_cancels(ctx: Context) -> Outcome:
    cancelled, why = await _cancel_turn(of(ctx))
    return passed() if cancelled else failed(why)


async def _sigint_exits(ctx: Context) -> Outcome:
    run = of(ctx)
    cancelled, why = await _cancel_turn(run)
    if not cancelled:
        return skipped(f"the turn was not cancelled ({why}): client.cancel.* says so")
    code = await exit_status(run)
    if code != 0:
        return failed(f"exit status {code} after the cancelled turn")
    if await agent_left_over(run):
        return failed("the agent it started still runs after it exited")
    return passed()
