"""The protocol surface of an edition: methods, roles and error codes.

Methods come from the `x-method`/`x-side` annotations on `$defs`, paired by the role rule of
`role_of`, never from the schema's envelope unions. A request and a notification of one name are
two methods. Roles are data: each side's requests and notifications (`both` methods belong to
each); the feature-level cancellation rule of a side is a `TurnRule` of the behaviour table
(`lowering.behaviour`, checked against the schema there), found by `Behaviour.turn_rule_for`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from enum import StrEnum

from acp_codegen.ir import (
    Definition,
    Enumeration,
    ErrorCode,
    Method,
    MethodKind,
    Role,
    Side,
    Stability,
)
from acp_codegen.lowering.nodes import JsonObject


class MethodRole(StrEnum):
    """What a method def is for, read from its name (`role_of`)."""

    PARAMS = "request"
    RESULT = "response"
    NOTIFICATION = "notification"


def role_of(def_name: str) -> MethodRole | None:
    """The role rule: `…Notification` → notification params, `…Response` → a request's result,
    `…Request` → a request's params (checked in that order: `CancelRequestNotification` is a
    notification). Anything else carrying `x-method` is a schema problem."""
    if def_name.endswith("Notification"):
        return MethodRole.NOTIFICATION
    if def_name.endswith("Response"):
        return MethodRole.RESULT
    if def_name.endswith("Request"):
        return MethodRole.PARAMS
    return None


ROLE_PAIRS = (("agent", "client"), ("client", "agent"))


def lower_methods(defs: JsonObject, stability_of: Callable[[str], Stability]) -> tuple[Method, ...]:
    """Every method of a validated document, sorted by name then kind."""
    by_method: dict[str, dict[MethodRole, str]] = defaultdict(dict)
    for name, schema in defs.items():
        if isinstance(schema, dict) and "x-method" in schema:
            role = role_of(name)
            assert role is not None, "validation guarantees a role"
            by_method[schema["x-method"]][role] = name
    methods = []
    for method_name, roles in by_method.items():
        for role, kind in (
            (MethodRole.PARAMS, MethodKind.REQUEST),
            (MethodRole.NOTIFICATION, MethodKind.NOTIFICATION),
        ):
            params = roles.get(role)
            if params is None:
                continue
            methods.append(
                Method(
                    name=method_name,
                    kind=kind,
                    side=Side(defs[params]["x-side"]),
                    params=params,
                    result=roles.get(MethodRole.RESULT) if kind is MethodKind.REQUEST else None,
                    stability=stability_of(method_name),
                    doc=str(defs[params].get("description", "")),
                )
            )
    return tuple(sorted(methods, key=lambda m: (m.name, m.kind.value)))


def lower_roles(methods: tuple[Method, ...]) -> tuple[Role, ...]:
    """The agent and client roles: the methods each handles (a role's turn rule is behaviour
    data, `Behaviour.turn_rule_for`, from the rule table of `lowering.behaviour`)."""
    roles = []
    for name, peer in ROLE_PAIRS:
        handled = [m for m in methods if m.side in (Side(name), Side.BOTH)]
        roles.append(
            Role(
                name=name,
                peer=peer,
                requests=tuple(m for m in handled if m.kind is MethodKind.REQUEST),
                notifications=tuple(m for m in handled if m.kind is MethodKind.NOTIFICATION),
            )
        )
    return tuple(roles)


def lower_error_codes(definitions: dict[str, Definition]) -> tuple[ErrorCode, ...]:
    """The `ErrorCode` enumeration's named codes (title, else its first description line)."""
    codes = definitions.get("ErrorCode")
    if not isinstance(codes, Enumeration):
        return ()
    return tuple(
        ErrorCode(int(m.value), m.title or m.doc.split("\n", 1)[0].strip("*: "), m.doc)
        for m in codes.members
        if isinstance(m.value, int)
    )
