"""Advertised ⇔ served (layer: case family), one pair of cases per optional agent method of the
edition's capability table: a method whose capability the `initialize` answer advertises is
served (never -32601), and a method the agent serves is advertised.

The schema's description of each capability is the quote ("Supplying `{}` means the agent
supports listing sessions"), and its words give both cases' level (levels.py): the schema's
capability descriptions say what advertising means without a MUST or a SHOULD, so both are
informative. An advertised method answered -32601 breaks the agent's promise to the client; a
served method left unadvertised is only unreachable (clients do not call it).
"""

from __future__ import annotations

from typing import Any

from .cases import Case, Context, Outcome, describe, error_code, failed, passed, skipped
from .data import CapabilityEntry, EditionData
from .levels import level_of
from .steps import advertises, initialize


def cases(edition: EditionData) -> list[Case]:
    found: list[Case] = []
    for capability in edition.capabilities:
        where = ".".join(capability.path)
        found.append(
            Case(
                f"capabilities.advertised_is_served.{capability.method}",
                f"advertised by {where}, {capability.method} is served (not -32601)",
                level_of(capability.quote.text),
                capability.quote,
                _advertised_is_served(capability),
                requires=(where,),
            )
        )
        found.append(
            Case(
                f"capabilities.served_is_advertised.{capability.method}",
                f"served, {capability.method} is advertised by {where}",
                level_of(capability.quote.text),
                capability.quote,
                _served_is_advertised(capability),
            )
        )
    return found


def _requests(ctx: Context, capability: CapabilityEntry) -> list[str]:
    """The requests the capability promises (notifications cannot be seen being served)."""
    return [m for m in capability.requires if ctx.edition.method(m, "request") is not None]


def _advertised_is_served(capability: CapabilityEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        result = await initialize(ctx)
        where = ".".join(capability.path)
        if not advertises(result, capability.path, capability.value):
            return skipped(f"the agent does not advertise {where}")
        for method in _requests(ctx, capability):
            answer = await ctx.call(method, {})
            if error_code(answer) == -32601:
                return failed(f"advertised by {where}, but {method} answered {describe(answer)}")
        return passed()

    return check


def _served_is_advertised(capability: CapabilityEntry) -> Any:
    async def check(ctx: Context) -> Outcome:
        result = await initialize(ctx)
        where = ".".join(capability.path)
        if advertises(result, capability.path, capability.value):
            return passed(f"advertised by {where}")
        served = []
        for method in _requests(ctx, capability):
            answer = await ctx.call(method, {})
            if error_code(answer) == -32601:
                return passed(f"not advertised, and {method} is not served (-32601)")
            served.append(f"{method} answered {describe(answer)}")
        return failed(f"not advertised by {where}, but served: {'; '.join(served)}")

    return check
