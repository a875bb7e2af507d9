"""The protocol surface of an edition: methods, roles, ACP's turn rules and error codes.

Methods come from the `x-method`/`x-side` annotations on `$defs`, paired by the role rule of
`role_of`, never from the schema's envelope unions. A request and a notification of one name are
two methods. Roles are data: each side's requests and notifications (`both` methods belong to
each), and the feature-level cancellation rule of that side (`TURN_RULES`, from the spec's prose,
kept only where the edition's own types accept the rule's result).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import jsonschema

from acp_codegen.ir import (
    Definition,
    Enumeration,
    ErrorCode,
    Method,
    MethodKind,
    Role,
    Side,
    Stability,
    TurnRule,
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


TURN_RULES = (
    TurnRule(
        method="session/prompt",
        cancel="session/cancel",
        received=True,
        result={"stopReason": "cancelled"},
        spec="prompt-turn § Cancellation: the Agent MUST respond to the original "
        "`session/prompt` request with the `cancelled` stop reason.",
    ),
    TurnRule(
        method="session/request_permission",
        cancel="session/cancel",
        received=False,
        result={"outcome": {"outcome": "cancelled"}},
        spec="prompt-turn § Cancellation: the Client MUST respond to all pending "
        "`session/request_permission` requests with the `cancelled` outcome.",
    ),
)
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


def lower_roles(doc: JsonObject, methods: tuple[Method, ...]) -> tuple[Role, ...]:
    """The agent and client roles; each with the turn rule whose methods and result it has."""
    roles = []
    for name, peer in ROLE_PAIRS:
        handled = [m for m in methods if m.side in (Side(name), Side.BOTH)]
        roles.append(
            Role(
                name=name,
                peer=peer,
                requests=tuple(m for m in handled if m.kind is MethodKind.REQUEST),
                notifications=tuple(m for m in handled if m.kind is MethodKind.NOTIFICATION),
                turn_rule=_turn_rule(doc, name, methods),
            )
        )
    return tuple(roles)


def _turn_rule(doc: JsonObject, role: str, methods: tuple[Method, ...]) -> TurnRule | None:
    by_key = {m.key: m for m in methods}
    for rule in TURN_RULES:
        request = by_key.get((rule.method, MethodKind.REQUEST))
        cancel = by_key.get((rule.cancel, MethodKind.NOTIFICATION))
        if request is None or cancel is None or request.side.value != role:
            continue
        if request.result is not None and _accepts(doc, request.result, dict(rule.result)):
            return rule
    return None


def _accepts(doc: JsonObject, def_name: str, value: Any) -> bool:
    schema = {"$defs": doc["$defs"], "$ref": f"#/$defs/{def_name}"}
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))


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
