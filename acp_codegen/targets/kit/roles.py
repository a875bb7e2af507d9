"""The IR's roles as a typed layer names them: classes, handlers, peers.

Roles are data in the IR (`ir.Role`: the methods a side handles; its turn rule is behaviour
data); a role view names them, from the role's name in PascalCase: the handler interface or base
class (`Agent`), its context (`AgentContext`), its connection (`AgentConnection`) and the typed
handle the other side calls it through (`AgentPeer`). Each handler is named by the target's
`MethodSpelling`.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.targets.kit.naming import MethodKey
from acp_codegen.words import pascal


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
    turn_rule: ir.TurnRule | None = None
    """The behaviour table's turn rule of a request this side handles (`turn_rule_for`)."""

    @property
    def name(self) -> str:
        return self.role.name

    @property
    def peer_name(self) -> str:
        return self.role.peer

    @property
    def class_name(self) -> str:
        return pascal(self.name)

    @property
    def peer_class(self) -> str:
        """The typed handle on this role, used by the other side (`ClientPeer`)."""
        return self.class_name + "Peer"

    @property
    def other_peer_class(self) -> str:
        return pascal(self.peer_name) + "Peer"

    @property
    def context_class(self) -> str:
        return self.class_name + "Context"

    @property
    def connection_class(self) -> str:
        return self.class_name + "Connection"


def role_views(edition: ir.Edition, names: dict[MethodKey, str]) -> tuple[RoleView, ...]:
    """The edition's roles, their handlers named by `names` (`MethodSpelling.names`)."""
    lifecycle = edition.behaviour.lifecycle
    states = None if lifecycle is None else lifecycle.states
    viewed = None if states is None else states.notification
    return tuple(
        RoleView(
            role,
            tuple(HandlerView(m, names[m.key]) for m in role.requests),
            tuple(HandlerView(m, names[m.key]) for m in role.notifications),
            any(m.name == viewed for m in role.notifications),
            edition.behaviour.turn_rule_for(m.name for m in role.requests),
        )
        for role in edition.roles
    )
