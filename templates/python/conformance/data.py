"""The types of an edition's conformance data (layer: data).

`acp_protocol.<edition>.conformance` (v1, v1/unstable, v2, v2/unstable) is generated from the
IR by acp-codegen and holds one `EditionData`: what the suite's cases are made from. Nothing here
knows a method name; the cases read the values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["MUST", "SHOULD", "informative"]


@dataclass(frozen=True, slots=True)
class Quote:
    """Text a case rests on and where it is said: a JSON pointer into the edition's schema
    (`#/$defs/…`), or a named specification (`JSON-RPC 2.0 §5`)."""

    text: str
    source: str


@dataclass(frozen=True, slots=True)
class MethodEntry:
    """One method of the edition: the side that handles it, its kind and its params type (a
    name in the edition's `models`)."""

    name: str
    kind: Literal["request", "notification"]
    side: str
    params: str
    result: str | None


@dataclass(frozen=True, slots=True)
class CapabilityEntry:
    """Where the `initialize` result advertises an optional agent method (wire keys from the
    result down, the value that says "supported"), the methods that advertising promises, and
    the schema's description of that capability."""

    method: str
    path: tuple[str, ...]
    value: Any
    requires: tuple[str, ...]
    quote: Quote


@dataclass(frozen=True, slots=True)
class RuleEntry:
    """A behaviour rule of the edition, its level read from the words it rests on."""

    name: str
    level: Level
    spec: str
    quotes: tuple[Quote, ...]


@dataclass(frozen=True, slots=True)
class NegotiationEntry:
    method: str
    field: str
    version: int
    unsupported: int | None
    """The error answered when no version at or below the one asked is supported (None: the
    edition defines none)."""
    level: Level
    quote: Quote
    rule: Quote | None = None
    """The text of the negotiation rule the level is read from, where it is not the schema's
    (v1: "the Agent MUST respond with the latest protocol version it supports")."""


@dataclass(frozen=True, slots=True)
class Said:
    """The schema text a lifecycle case rests on (its key names the case's rule), and the level
    its words carry."""

    key: str
    level: Level
    quote: Quote


@dataclass(frozen=True, slots=True)
class LifecycleEntry:
    """The prompt lifecycle answered at insertion (v2): the request that closes a session, the
    prompt result's message id field, the `session/update` values that report the session's
    state (`update_tag: update_value`, `state_tag: running | idle | requires_action`, the idle
    update's `stop_reason`), the echo of the inserted message (`user_message`), the agent's
    streamed message (`agent_chunk`), the requests that wait on the user, and the schema text of
    each rule the lifecycle cases check."""

    close: str | None
    message_id: str
    update_tag: str
    update_value: str
    state_tag: str
    running: str
    idle: str
    requires_action: str
    stop_reason: str
    user_message: str
    agent_chunk: str
    user_action: tuple[str, ...]
    retry_key: str | None
    """The prompt's field naming one submission across attempts (None: the edition has none)."""
    said: tuple[Said, ...]

    def rule(self, key: str) -> Said:
        return next(s for s in self.said if s.key == key)


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """The prompt turn: `answer` is "completion" (v1: the answer ends the turn with a stop
    reason) or "insertion" (v2, with its `lifecycle`)."""

    method: str
    answer: Literal["completion", "insertion"]
    cancel: str
    update: str
    end_turn: str
    cancelled: str
    stop_reasons: tuple[str, ...]
    level: Level
    stop_reason_quote: Quote | None
    cancelled_quote: Quote | None
    lifecycle: LifecycleEntry | None = None


@dataclass(frozen=True, slots=True)
class ErrorCodeEntry:
    code: int
    name: str
    quote: Quote


@dataclass(frozen=True, slots=True)
class EditionData:
    key: str
    protocol_version: int
    source: str
    methods: tuple[MethodEntry, ...]
    capabilities: tuple[CapabilityEntry, ...]
    rules: tuple[RuleEntry, ...]
    negotiation: NegotiationEntry
    prompt: PromptEntry | None
    error_codes: tuple[ErrorCodeEntry, ...]
    request_id: Quote | None = None
    """The schema's description of `RequestId`."""
    null_request_id: bool = False
    """Whether the edition's `RequestId` admits null (v1: "a String, Number, or NULL value"): a
    request with `"id": null` is then a request, answered with the same id."""

    def handled_by(self, side: str, kind: str) -> tuple[MethodEntry, ...]:
        """The methods of `kind` that `side` handles (`both` counts for each side)."""
        return tuple(m for m in self.methods if m.kind == kind and m.side in (side, "both"))

    def method(self, name: str, kind: str = "request") -> MethodEntry | None:
        return next((m for m in self.methods if m.name == name and m.kind == kind), None)

    def error(self, code: int) -> ErrorCodeEntry | None:
        return next((e for e in self.error_codes if e.code == code), None)

    def capability(self, method: str) -> CapabilityEntry | None:
        return next((c for c in self.capabilities if c.method == method), None)
