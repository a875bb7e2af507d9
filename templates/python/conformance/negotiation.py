"""Negotiation cases (layer: case family): `initialize` answers a version at or below the one
asked, a higher version asked is answered with the agent's own, a repeated `initialize` is
answered like the first, and what a request before `initialize` gets.

The version cases quote the edition's negotiation rule where its level comes from one (v1: "the
Agent MUST respond with the latest protocol version it supports"), else the schema's description
of the answered version, and their level is the quote's words (levels.py); v2's description says
MUST and SHOULD only of the Client, so there they are informative and say so. No text speaks of a
repeated `initialize` or of requests before it, so those two are informative.
"""

from __future__ import annotations

from .cases import Case, Context, Failure, Outcome, describe, error_code, failed, passed
from .data import EditionData, Level, NegotiationEntry, Quote
from .levels import INFORMATIVE, SUITES_READING, level_of
from .steps import initialize, initialize_params, new_session, params

FAR_VERSION = 60000
"""A protocol version no agent implements (ProtocolVersion is a uint16)."""


def version_rule(n: NegotiationEntry) -> tuple[Level, Quote]:
    """The version cases' level and quote: the negotiation rule's text where the edition has
    one, else the schema's description of the answered version (informative, saying so, when
    its MUST and SHOULD bind the Client)."""
    if n.rule is not None:
        return level_of(n.rule.text), n.rule
    if level_of(n.quote.text) == n.level:
        return n.level, n.quote
    why = f"{INFORMATIVE} its words that say MUST or SHOULD bind the Client"
    return "informative", Quote(n.quote.text, f"{n.quote.source} ({why})")


def cases(edition: EditionData) -> list[Case]:
    n = edition.negotiation
    level, quote = version_rule(n)
    version = edition.protocol_version
    before = Quote(
        "The schema says nothing of a request sent before initialize: whatever the agent "
        "answers is reported.",
        f"{edition.source} ({n.method})",
    )
    return [
        Case(
            "negotiation.answers_at_most_the_version_asked",
            f"initialize asking version {version} is answered with a version at or below it",
            level,
            quote,
            _at_most_asked,
        ),
        Case(
            "negotiation.higher_version_answers_the_agents_own",
            f"initialize asking version {FAR_VERSION} is answered with the agent's own version",
            level,
            quote,
            _higher_version,
        ),
        Case(
            "negotiation.lower_version_answered_at_or_below_it_or_refused",
            f"initialize asking version {version - 1} is answered "
            + (
                f"with a version at or below it, or refused with {n.unsupported}"
                if n.unsupported is not None
                else "with the agent's own version"
            ),
            level,
            quote,
            _lower_version,
        ),
        Case(
            "negotiation.repeated_initialize_answered_like_the_first",
            "a second initialize is answered with the same version and capabilities",
            "informative",
            Quote(
                n.quote.text,
                f"{n.quote.source} ({SUITES_READING}: no text speaks of a second " f"{n.method})",
            ),
            _repeated,
        ),
        Case(
            "negotiation.request_before_initialize",
            "a session/new sent before initialize is answered (a result or an error)",
            "informative",
            before,
            _before_initialize,
        ),
    ]


def _version(ctx: Context, result: dict[str, object]) -> int:
    field = ctx.edition.negotiation.field
    answered = result.get(field)
    if type(answered) is not int:
        raise Failure(f"the initialize result's {field} is {answered!r}, not an integer")
    return answered


async def _at_most_asked(ctx: Context) -> Outcome:
    asked = ctx.edition.protocol_version
    answered = _version(ctx, await initialize(ctx))
    if answered > asked:
        return failed(f"asked for version {asked}, answered {answered}")
    return passed(f"answered version {answered}")


async def _higher_version(ctx: Context) -> Outcome:
    answered = _version(ctx, await initialize(ctx, FAR_VERSION))
    if answered == FAR_VERSION:
        return failed(f"answered the version asked ({FAR_VERSION}) instead of its own")
    if answered > FAR_VERSION:
        return failed(f"asked for version {FAR_VERSION}, answered {answered}")
    if answered < ctx.edition.protocol_version:
        return failed(
            f"answered version {answered}, below this edition's {ctx.edition.protocol_version}"
        )
    return passed(f"answered version {answered}")


async def _lower_version(ctx: Context) -> Outcome:
    """A version below the edition's: where the edition names an error for "no version at or
    below the one asked" (v2's -32022), the answer is a version at or below it or that error;
    where it names none (v1: "the Agent MUST respond with the latest protocol version it
    supports"), any version the agent answers is its own."""
    n = ctx.edition.negotiation
    asked = ctx.edition.protocol_version - 1
    answer = await ctx.call(n.method, initialize_params(ctx, asked))
    if n.unsupported is not None and error_code(answer) == n.unsupported:
        return passed(f"refused with {describe(answer)}")
    result = answer.get("result")
    if type(result) is not dict:
        return failed(f"asked for version {asked}, answered {describe(answer)}")
    answered = _version(ctx, result)
    if n.unsupported is not None and answered > asked:
        return failed(f"asked for version {asked}, answered {answered} (not {n.unsupported})")
    return passed(f"answered version {answered}")


async def _repeated(ctx: Context) -> Outcome:
    first = await initialize(ctx)
    second = await initialize(ctx)
    field = ctx.edition.negotiation.field
    if first.get(field) != second.get(field):
        return failed(f"{field} {first.get(field)!r}, then {second.get(field)!r}")
    changed = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
    if changed:
        return failed(f"the second answer differs in {', '.join(changed)}")
    return passed()


async def _before_initialize(ctx: Context) -> Outcome:
    wire = {"cwd": ctx.workdir, "mcpServers": []}
    answer = await ctx.call("session/new", params(ctx, "session/new", wire))
    first = describe(answer)
    await ctx.call(ctx.edition.negotiation.method, initialize_params(ctx))
    if error_code(answer) is not None:
        return passed(f"refused with {first}; initialize then answered")
    await new_session(ctx)
    return passed("answered with a session before initialize")
