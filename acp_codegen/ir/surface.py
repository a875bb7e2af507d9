"""The IR's protocol surface and root: methods, roles, turn rules, error codes, editions."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from acp_codegen.ir.behaviour import Behaviour
from acp_codegen.ir.definitions import Definition, Field, Stability, Struct
from acp_codegen.ir.state import ScopeAnnotation, StateAnnotation
from acp_codegen.problems import SchemaProblem


class MethodKind(StrEnum):
    REQUEST = "request"
    NOTIFICATION = "notification"


class Side(StrEnum):
    """`x-side`: the side that handles a method. `both`: either; `protocol`: every side's
    dispatcher (`$/cancel_request`); `proxy`: the proxy-chain role of the unstable schemas."""

    AGENT = "agent"
    CLIENT = "client"
    BOTH = "both"
    PROTOCOL = "protocol"
    PROXY = "proxy"


@dataclass(frozen=True, slots=True)
class Method:
    """One JSON-RPC method. A request and a notification of one name are two `Method`s."""

    name: str
    kind: MethodKind
    side: Side
    params: str
    result: str | None
    stability: Stability
    doc: str

    @property
    def key(self) -> tuple[str, MethodKind]:
        return (self.name, self.kind)


@dataclass(frozen=True, slots=True)
class Role:
    """One side of the protocol as data: the methods it handles and the one it talks to (its
    turn rule, if any, is behaviour data: `Behaviour.turn_rule_for(role)`)."""

    name: str
    peer: str
    requests: tuple[Method, ...]
    notifications: tuple[Method, ...]


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: int
    name: str
    doc: str


@dataclass(frozen=True, slots=True)
class Edition:
    """One schema file: protocol `v1`/`v2`, stable or unstable, lowered."""

    protocol: str
    channel: Stability
    source: str
    sha256: str
    definitions: tuple[Definition, ...]
    methods: tuple[Method, ...]
    roles: tuple[Role, ...]
    error_codes: tuple[ErrorCode, ...]
    behaviour: Behaviour
    """What an SDK must do in this edition beyond the types (`ir.behaviour`)."""
    def_names: frozenset[str] = field(default_factory=frozenset)
    """The schema's own `$defs` names (every other definition was named by a rule)."""
    state: tuple[StateAnnotation, ...] = ()
    """The schema's `x-state` annotations, in document order (`ir.state`)."""
    scopes: tuple[ScopeAnnotation, ...] = ()
    """The schema's `x-scope` annotations, in document order."""
    review: tuple[SchemaProblem, ...] = ()
    """Review findings: a behaviour rule that applies but rests on text the schema no longer
    says, one per rule (`acp-codegen generate` prints them, `--strict` fails on them)."""

    @property
    def protocol_version(self) -> int:
        """The `protocolVersion` number this edition speaks (`v2` → 2)."""
        return int(self.protocol.removeprefix("v"))

    @property
    def key(self) -> str:
        """`v1`, `v1/unstable`, …: where the edition lives in a target's output."""
        return self.protocol + ("" if self.channel is Stability.STABLE else "/unstable")

    def definition(self, name: str) -> Definition:
        for definition in self.definitions:
            if definition.name == name:
                return definition
        raise KeyError(name)

    def field_of(self, struct: Struct, wire_name: str) -> Field | None:
        """`struct`'s field `wire_name`: its own, or one of its bases' (in their order)."""
        for own in struct.fields:
            if own.wire_name == wire_name:
                return own
        for base in struct.bases:
            parent = next((d for d in self.definitions if d.name == base), None)
            found = self.field_of(parent, wire_name) if isinstance(parent, Struct) else None
            if found is not None:
                return found
        return None

    def requests(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind is MethodKind.REQUEST)

    def notifications(self) -> tuple[Method, ...]:
        return tuple(m for m in self.methods if m.kind is MethodKind.NOTIFICATION)

    def role(self, name: str) -> Role:
        return next(r for r in self.roles if r.name == name)


@dataclass(frozen=True, slots=True)
class Specification:
    """The IR root: every pinned edition of one upstream release (`origin`)."""

    origin: str
    """The upstream package and version the schemas come from (`@agentclientprotocol/sdk@2.4.0`)."""
    version: str
    """The upstream release's version alone (`2.4.0`)."""
    editions: tuple[Edition, ...]

    @property
    def review(self) -> tuple[SchemaProblem, ...]:
        """Every edition's review findings, in edition order."""
        return tuple(finding for e in self.editions for finding in e.review)

    def edition(self, protocol: str, channel: Stability) -> Edition | None:
        return next(
            (e for e in self.editions if e.protocol == protocol and e.channel is channel), None
        )

    @property
    def protocols(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.protocol for e in self.editions))
