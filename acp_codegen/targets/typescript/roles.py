"""The IR's roles as the TypeScript typed layer names them: interfaces, handlers, peers.

Roles are data in the IR (`ir.Role`: the methods a side handles, its turn rule); this module
only names them (`Agent`, `AgentContext`, `AgentConnection`, `ClientPeer`), from the role's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.words import pascal


@dataclass(frozen=True, slots=True)
class HandlerView:
    method: ir.Method
    name: str


@dataclass(frozen=True, slots=True)
class RoleView:
    role: ir.Role
    requests: tuple[HandlerView, ...]
    notifications: tuple[HandlerView, ...]

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
        return pascal(self.name)

    @property
    def peer_class(self) -> str:
        """The typed handle on this role, used by the other side (`AgentPeer`)."""
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


def role_views(
    edition: ir.Edition, names: dict[tuple[str, ir.MethodKind], str]
) -> tuple[RoleView, ...]:
    """The edition's roles, their handlers named by `names` (`names.handler_names`)."""
    return tuple(
        RoleView(
            role,
            tuple(HandlerView(m, names[m.key]) for m in role.requests),
            tuple(HandlerView(m, names[m.key]) for m in role.notifications),
        )
        for role in edition.roles
    )
