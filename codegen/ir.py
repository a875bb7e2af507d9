"""The intermediate representation: what every target renders from.

A `Protocol` holds two editions of one protocol version, built from the stable and the unstable
schema (the unstable one is a superset). A type or method present only in the unstable schema is
`UNSTABLE`. Methods come from the `x-method`/`x-side` annotations on `$defs`, paired by the role
rule of `role_of`; never from the schema's envelope unions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# `agent`/`client`: the side that handles the method; `both`: either side; `protocol`: the
# protocol-level `$/...` messages every side implements; `proxy`: the proxy-chain methods the
# unstable v1 schema carries (`proxy/initialize`, `proxy/successor`).
SIDES = frozenset({"agent", "client", "both", "protocol", "proxy"})


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


class Kind(StrEnum):
    REQUEST = "request"
    NOTIFICATION = "notification"


class Stability(StrEnum):
    STABLE = "stable"
    UNSTABLE = "unstable"


@dataclass(frozen=True, slots=True)
class TypeDef:
    """One `$defs` entry. `json_schema` is the definition itself, for targets that hand model
    generation to a JSON Schema tool (the Python target's datamodel-code-generator)."""

    name: str
    pointer: str
    description: str
    stability: Stability
    json_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Method:
    """One JSON-RPC method as the schema declares it. `side` is the side that handles it."""

    name: str
    side: str
    kind: Kind
    params_type: str
    result_type: str | None
    stability: Stability
    description: str

    @property
    def is_protocol_level(self) -> bool:
        return self.side == "protocol"


@dataclass(frozen=True, slots=True)
class Edition:
    """What one schema file declares: its types and methods, sorted by name."""

    stability: Stability
    source: str
    sha256: str
    types: tuple[TypeDef, ...]
    methods: tuple[Method, ...]

    def requests(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind is Kind.REQUEST)

    def notifications(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind is Kind.NOTIFICATION)


@dataclass(frozen=True, slots=True)
class Protocol:
    name: str
    version: str
    origin: str
    stable: Edition
    unstable: Edition

    @property
    def editions(self) -> tuple[Edition, Edition]:
        return (self.stable, self.unstable)
