"""The two ACP roles, as the Python target's typed layer renders them from the IR's method table.

A role is the side that handles a method (`x-side`). ACP defines two, `agent` and `client`;
`both` methods belong to each. Two kinds of methods belong to neither:
- `protocol` (`$/cancel_request`): handled by the runtime's dispatcher for every role;
- `proxy` (the unstable `proxy/initialize`, `proxy/successor`): the proxy-chain role, which this
  target does not generate yet; the method table lists them and both roles answer them `-32601`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codegen.ir import Edition, Kind, Method
from codegen.problems import GenerationError


@dataclass(frozen=True, slots=True)
class Role:
    """One side: its handler class, its context, its connection and its typed peer."""

    name: str
    peer_name: str
    requests: tuple[Method, ...]
    notifications: tuple[Method, ...]

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


ROLE_PAIRS = (("agent", "client"), ("client", "agent"))


def handler_name(method: str) -> str:
    """The one naming rule: non-alphanumeric runs become `_`, outer `_` dropped.

    `session/prompt` → `session_prompt`, `fs/read_text_file` → `fs_read_text_file`,
    `$/cancel_request` → `cancel_request`.
    """
    return re.sub(r"[^0-9A-Za-z]+", "_", method).strip("_")


def roles_of(edition: Edition) -> tuple[Role, ...]:
    """The edition's roles; fails when two methods of a role would get one Python name."""
    roles = []
    for name, peer_name in ROLE_PAIRS:
        handled = [m for m in edition.methods if m.side in (name, "both")]
        role = Role(
            name=name,
            peer_name=peer_name,
            requests=tuple(m for m in handled if m.kind is Kind.REQUEST),
            notifications=tuple(m for m in handled if m.kind is Kind.NOTIFICATION),
        )
        _check_unique_names(role, edition.source)
        roles.append(role)
    return tuple(roles)


def _check_unique_names(role: Role, source: str) -> None:
    seen: dict[str, str] = {}
    reserved = {"extension_request", "extension_notification"}
    for method in (*role.requests, *role.notifications):
        python_name = handler_name(method.name)
        clash = seen.get(python_name) or (python_name if python_name in reserved else None)
        if clash is not None:
            raise GenerationError(
                f"{source}: {role.name} methods {clash!r} and {method.name!r} both map to the "
                f"Python name {python_name!r}; add a rule to codegen/targets/python_roles.py"
            )
        seen[python_name] = method.name
