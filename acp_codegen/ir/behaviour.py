"""The IR's protocol behaviour: what an SDK must *do* per edition, beyond the types.

Each rule is data a target renders (constants, tables), so no runtime asks which edition it
speaks. The rules come from one small table keyed by meaning (`acp_codegen.lowering.rules`),
checked against each edition's schema at generation: a rule applies where the edition has every
method, type, field and tag it is about, and is simply not part of an edition that lacks one.
`Behaviour.rules` lists the rules an edition carries out and the schema text each rests on;
`Behaviour.absent` the ones it does not, and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class MetaPolicy(StrEnum):
    """How a metadata-carrying update applies its `_meta` object to what is stored."""

    MERGE = "merge"
    """Recursively (RFC 7396 JSON Merge Patch): the v1 session-info-update RFD."""
    REPLACE = "replace"
    """The object replaces the stored one."""
    PATCH = "patch"
    """By top-level key: an omitted key is unchanged, a `null` key removed, any other value
    replaces that key whole, nested objects not merged (v2)."""


@dataclass(frozen=True, slots=True)
class MetaRule:
    """The `_meta` policy of one update type (`SessionInfoUpdate`)."""

    type: str
    policy: MetaPolicy
    alternatives: tuple[MetaPolicy, ...]
    """Other policies a store may be set to (v1 allows `replace`; v2 none)."""
    spec: str


@dataclass(frozen=True, slots=True)
class Capability:
    """Where an agent's `initialize` result advertises an optional method: the wire keys from
    the result down, and the value that says "supported" (`{}`, or `true`).

    `requires` are the methods the agent must serve for the capability to be advertised (the
    requests it answers, the notifications it acts on): `(method,)` for one optional method;
    v2's `capabilities.session` promises the whole baseline, so it requires every baseline method
    the agent receives. An SDK advertises the capability only when it serves all of them."""

    method: str
    path: tuple[str, ...]
    value: Any
    spec: str
    requires: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.requires:
            object.__setattr__(self, "requires", (self.method,))


@dataclass(frozen=True, slots=True)
class CancelOutcome:
    """A request that the protocol-level cancel (`$/cancel_request`) ends with `result`, not
    `-32800`: v2's `session/request_permission` → the `cancelled` outcome."""

    method: str
    result: Mapping[str, Any]
    spec: str


@dataclass(frozen=True, slots=True)
class TargetCancel:
    """A request that cancels one target of a session (`tool_call/cancel` → `toolCallId`): the
    agent answers `error` when the target is unknown, already final or not cancellable."""

    method: str
    target: str
    """The params field naming the target."""
    error: int
    spec: str


class PromptAnswer(StrEnum):
    """When `session/prompt` is answered."""

    COMPLETION = "completion"
    """v1: the answer ends the turn, with its stop reason."""
    INSERTION = "insertion"
    """v2: the answer acknowledges insertion (a message id); `state_update`s report the work."""


@dataclass(frozen=True, slots=True)
class StateUpdates:
    """How the agent reports a session's foreground state (v2 `state_update`): the update
    notification, the `SessionUpdate` tag and value, the state tag and its values, and the
    idle update's stop reason field."""

    notification: str
    update_tag: str
    update_value: str
    state_tag: str
    running: str
    idle: str
    requires_action: str
    stop_reason: str
    user_message: str
    """The `SessionUpdate` value of the inserted user message (`user_message`)."""
    agent_chunk: str
    """The `SessionUpdate` value of an agent message chunk."""
    user_chunk: str
    """The `SessionUpdate` value of a user message chunk (`user_message_chunk`): one carrying the
    prompt's message id echoes it as well (codex-acp 2.6.0 echoes a prompt so)."""
    user_action: tuple[str, ...] = ()
    """The requests of the work that wait on the user (permissions, elicitations): while the
    work awaits one, its state is `requires_action`; `running` again when none is pending."""


@dataclass(frozen=True, slots=True)
class PromptLifecycle:
    """The prompt turn of an edition: which request, when it is answered, what cancels it."""

    prompt: str
    answer: PromptAnswer
    cancel: str
    """The notification that ends the session's foreground work."""
    close: str | None
    """The request that ends a session (cancelling its work first), when the edition has one."""
    message_id: str | None
    """INSERTION: the prompt result's field holding the inserted message's id."""
    states: StateUpdates | None
    """INSERTION: how work is reported."""
    end_turn: str
    cancelled: str
    failed: str | None
    """The stop reasons of work that ended normally, of work cancelled, and of work that failed
    (None: the edition reports failures as errors, not stop reasons)."""
    spec: str
    retry_key: str | None = None
    """INSERTION: the prompt request's field naming one submission across attempts (from the
    edition's `PromptRetry` rule; None: the edition has none)."""


@dataclass(frozen=True, slots=True)
class PromptRetry:
    """A prompt request's key that names one submission across attempts: a retry carrying the
    key of an insertion the agent recorded is answered with that insertion's message id, and
    inserts nothing. The lowering puts `key` on the edition's insertion lifecycle."""

    prompt: str
    key: str
    spec: str


@dataclass(frozen=True, slots=True)
class ResumeReplay:
    """How `method` (`session/resume`) replays a session's history, as a session store serves it
    for the agent. `cursor` None: it never replays (v1: "without returning previous messages").
    Else the request's `cursor` field names where replay begins: omitted or null, no replay; a
    `cursor_tag` of `start`, every retained update; any other cursor is `unsupported` (the store
    keeps no other positions). A replay ends with the `marker` session update, then the current
    state update (the lifecycle's `states`); `not_history` names the session updates that are
    not part of the history (never recorded, never replayed)."""

    method: str
    cursor: str | None
    spec: str
    cursor_tag: str = ""
    start: str = ""
    unsupported: int = 0
    marker: str = ""
    not_history: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Negotiation:
    """Version negotiation in `initialize`: the agent answers the highest version it implements
    at or below the one asked; `unsupported` is the error when none is (None: the edition
    defines no such error, and the agent answers its lowest version)."""

    method: str
    field: str
    version: int
    unsupported: int | None
    spec: str


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence of the schema a rule rests on: the definition it is expected under, the text,
    and the JSON pointer of the description that says it (None: the schema no longer says it;
    the rule applies, and awaits a person's review)."""

    definition: str
    text: str
    pointer: str | None


@dataclass(frozen=True, slots=True)
class RuleRecord:
    """One behaviour rule of an edition: its name (keyed by meaning), the spec it implements,
    and the schema text it rests on (`quotes`) or, for a rule that does not apply, why (`reason`,
    the first thing the edition lacks)."""

    name: str
    spec: str
    quotes: tuple[Quote, ...] = ()
    reason: str = ""

    @property
    def unconfirmed(self) -> tuple[Quote, ...]:
        """The quotes the schema no longer says: the rule's review findings."""
        return tuple(q for q in self.quotes if q.pointer is None)


@dataclass(frozen=True, slots=True)
class TurnRule:
    """ACP's feature-level cancellation: `cancel` (a notification with a `sessionId`) ends the
    session's in-flight `method` requests with `result`, never an error. `received`: the role
    handling `method` receives `cancel` (the agent's prompt); otherwise it sends it (the client's
    pending permission requests)."""

    method: str
    cancel: str
    received: bool
    result: Mapping[str, Any]
    spec: str
    """The rule's source, quoted."""


@dataclass(frozen=True, slots=True)
class Behaviour:
    """Every behaviour rule of one edition (empty tuples where it has none)."""

    negotiation: Negotiation
    lifecycle: PromptLifecycle | None
    """None: the edition has no prompt turn (a partial schema)."""
    capabilities: tuple[Capability, ...] = ()
    meta: tuple[MetaRule, ...] = ()
    cancel_outcomes: tuple[CancelOutcome, ...] = ()
    target_cancels: tuple[TargetCancel, ...] = ()
    turn_rules: tuple[TurnRule, ...] = ()
    """ACP v1's feature-level cancellation (`session/cancel` ending a session's turns), one per
    request it applies to: entries of the same table as the lifecycle, carried out by the same
    engine in each runtime."""
    resume: ResumeReplay | None = None
    """How `session/resume` replays from a session store (None: the edition has no rule for it,
    and a store does not answer it)."""
    rules: tuple[RuleRecord, ...] = ()
    """The rules this edition carries out, in the table's order, each with its quotes."""
    absent: tuple[RuleRecord, ...] = ()
    """The rules of the protocol that are not part of this edition, each with its reason."""

    def turn_rule_for(self, requests: Iterable[str]) -> TurnRule | None:
        """The turn rule of the side handling `requests` (its request methods' names)."""
        handled = set(requests)
        return next((rule for rule in self.turn_rules if rule.method in handled), None)

    def capability(self, method: str) -> Capability | None:
        return next((c for c in self.capabilities if c.method == method), None)

    def meta_rule(self, type_name: str) -> MetaRule | None:
        return next((m for m in self.meta if m.type == type_name), None)
