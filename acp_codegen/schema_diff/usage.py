"""Who sends and who receives each type of an edition, read from its methods.

A request's params travel from the caller to the handling side, its result back; a notification's
params from the sender to the handler. A type is used in every direction of every message that
refers to it, through fields, bases, variants and aliases.
"""

from __future__ import annotations

from collections import defaultdict

from acp_codegen import ir

ROLES = ("agent", "client")


def handlers(side: ir.Side) -> tuple[str, ...]:
    """The roles that handle a method of `side` (`both`, `protocol` and `proxy`: either)."""
    return (side.value,) if side.value in ROLES else ROLES


def other(role: str) -> str:
    return "client" if role == "agent" else "agent"


def directions(edition: ir.Edition) -> dict[str, set[tuple[str, str]]]:
    """Type name → the (sender role, receiver role) pairs it travels in."""
    by_name = {d.name: d for d in edition.definitions}
    result: dict[str, set[tuple[str, str]]] = defaultdict(set)

    def mark(name: str, direction: tuple[str, str]) -> None:
        stack = [name]
        while stack:
            current = stack.pop()
            if current not in by_name or direction in result[current]:
                continue
            result[current].add(direction)
            stack += ir.dependencies(by_name[current])
            definition = by_name[current]
            if isinstance(definition, ir.Struct):
                stack += list(definition.bases)

    for method in edition.methods:
        for handler in handlers(method.side):
            caller = other(handler)
            mark(method.params, (caller, handler))
            if method.result is not None:
                mark(method.result, (handler, caller))
    return result
