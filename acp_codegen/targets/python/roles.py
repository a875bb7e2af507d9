"""The IR's roles as the Python typed layer names them: classes, handler methods, peers.

Roles are data in the IR (`ir.Role`: the methods a side handles, its turn rule). This module only
names them for Python. One rule names handlers: non-alphanumeric runs of the method name become
`_`, outer `_` dropped (`session/prompt` → `session_prompt`, `$/cancel_request` →
`cancel_request`); where an edition has a request and a notification of one name (`mcp/message`
with `x-side: both` in 1.5.x schemas, the unstable `proxy/successor`), the notification's handler
gets `_notification`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import GenerationError

RESERVED_HANDLERS = frozenset({"extension_request", "extension_notification"})


def handler_name(method: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", method).strip("_")


@dataclass(frozen=True, slots=True)
class HandlerView:
    method: ir.Method
    name: str


@dataclass(frozen=True, slots=True)
class RoleView:
    """One side: its handler class, its context, its connection and its typed peer."""

    role: ir.Role
    requests: tuple[HandlerView, ...]
    notifications: tuple[HandlerView, ...]
    session_views: bool = False
    """This side receives the state updates of a prompt lifecycle answered at insertion: its
    connection has `session(id)`, a view of one session (the v2 client)."""

    @property
    def name(self) -> str:
        return self.role.name

    @property
    def peer_name(self) -> str:
        return self.role.peer

    @property
    def turn_rule(self) -> ir.TurnRule | None:
        return self.role.turn_rule

    @property
    def class_name(self) -> str:
        return self.name.capitalize()

    @property
    def peer_class(self) -> str:
        """The typed handle on this role, used by the other side (`ClientPeer`)."""
        return self.class_name + "Peer"

    @property
    def other_peer_class(self) -> str:
        return self.peer_name.capitalize() + "Peer"

    @property
    def context_class(self) -> str:
        return self.class_name + "Context"

    @property
    def connection_class(self) -> str:
        return self.class_name + "Connection"


def method_handler_names(edition: ir.Edition) -> dict[tuple[str, ir.MethodKind], str]:
    """The Python handler name of every method of the edition, by (name, kind)."""
    requests = {m.name for m in edition.requests()}
    return {
        m.key: handler_name(m.name)
        + ("_notification" if m.kind is ir.MethodKind.NOTIFICATION and m.name in requests else "")
        for m in edition.methods
    }


def any_typed_results(edition: ir.Edition) -> frozenset[str]:
    """The result types of the edition's requests that a type checker sees as `Any`: aliases of
    any JSON value, directly or through other aliases (1.x's `MessageMcpResponse`). A typed peer
    returns the sending coroutine of such a request as it is: a cast would be redundant."""
    found: set[str] = set()
    for method in edition.requests():
        name, seen = method.result, set[str]()
        while name is not None and name not in seen:
            seen.add(name)
            definition = edition.definition(name)
            target = definition.target if isinstance(definition, ir.Alias) else None
            if isinstance(target, ir.AnyValue):
                found.add(str(method.result))
            name = target.name if isinstance(target, ir.Ref) else None
    return frozenset(found)


def role_views(edition: ir.Edition) -> tuple[RoleView, ...]:
    """The edition's roles named for Python; fails when two handlers would share a name."""
    names = method_handler_names(edition)
    lifecycle = edition.behaviour.lifecycle
    states = None if lifecycle is None else lifecycle.states
    viewed = None if states is None else states.notification
    return tuple(_view(role, names, edition.source, viewed) for role in edition.roles)


def _view(
    role: ir.Role,
    names: dict[tuple[str, ir.MethodKind], str],
    source: str,
    viewed: str | None,
) -> RoleView:
    requests = tuple(HandlerView(m, names[m.key]) for m in role.requests)
    notifications = tuple(HandlerView(m, names[m.key]) for m in role.notifications)
    seen: dict[str, str] = {}
    for handler in (*requests, *notifications):
        clash = seen.get(handler.name) or (
            handler.name if handler.name in RESERVED_HANDLERS else None
        )
        if clash is not None:
            raise GenerationError(
                f"{source}: {role.name} methods {clash!r} and {handler.method.name!r} both map "
                f"to the Python name {handler.name!r}"
            )
        seen[handler.name] = handler.method.name
    views = any(n.method.name == viewed for n in notifications)
    return RoleView(role, requests, notifications, views)
