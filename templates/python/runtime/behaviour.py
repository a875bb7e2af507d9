"""An edition's protocol behaviour as data: what the typed layer does beyond the types.

Layer: typed layer (data only).

Each generated edition holds one `Behaviour` (`acp_protocol.<edition>.behaviour.BEHAVIOUR`),
rendered from the IR's rule table (`acp_codegen.lowering.behaviour`), and hands it to the router.
The runtime branches on these values (`lifecycle.answer == "insertion"`), never on an edition's
name: a schema that moves a rule moves the behaviour with it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

MetaPolicy = Literal["merge", "replace", "patch"]
"""How a `_meta` object applies to stored metadata (see `session_info`)."""


@dataclass(frozen=True, slots=True)
class Negotiation:
    """`initialize`: the agent answers the highest version it implements at or below the one
    asked; with no such version, `unsupported` (v2: -32022), or (None) its lowest version."""

    method: str
    field: str
    version: int
    unsupported: int | None


@dataclass(frozen=True, slots=True)
class StateUpdates:
    """How foreground state is reported: `{update_tag: update_value, state_tag: <state>}` in
    the `update` of a `notification`, `stop_reason` on the idle one."""

    notification: str
    update_tag: str
    update_value: str
    state_tag: str
    running: str
    idle: str
    requires_action: str
    stop_reason: str
    user_message: str
    agent_chunk: str
    user_chunk: str
    """A user message chunk: one with the prompt's message id echoes it too."""
    user_action: tuple[str, ...] = ()
    """The work's requests that wait on the user: while one is pending, `requires_action`."""


@dataclass(frozen=True, slots=True)
class PromptLifecycle:
    """The prompt turn: `answer` is `"completion"` (the answer ends the turn) or `"insertion"`
    (the answer acknowledges insertion with `message_id`; `states` report the work)."""

    prompt: str
    answer: Literal["completion", "insertion"]
    cancel: str
    close: str | None
    message_id: str | None
    states: StateUpdates | None
    end_turn: str
    cancelled: str
    failed: str | None
    retry_key: str | None = None
    """The prompt's field naming one submission across attempts (`idempotencyKey`): a retry of
    a recorded insertion is answered with its message id and inserts nothing (None: none)."""


@dataclass(frozen=True, slots=True)
class Capability:
    """The wire keys of the `initialize` result that advertise `method`, and the value set;
    advertised only when the agent serves every method of `requires` (v2's `capabilities.session`
    promises the whole session baseline)."""

    method: str
    path: tuple[str, ...]
    value: Any
    requires: tuple[str, ...] = ()

    def served_by(self, served: Collection[str]) -> bool:
        """Whether an agent serving `served` may advertise this capability."""
        return all(m in served for m in self.requires or (self.method,))


@dataclass(frozen=True, slots=True)
class TargetCancel:
    """A request cancelling one target (`toolCallId`); `error` for an unknown one."""

    method: str
    target: str
    error: int


@dataclass(frozen=True, slots=True)
class TurnRule:
    """ACP v1's feature-level cancellation: a request that a session-scoped cancel notification
    answers with `result` (an entry of the behaviour table, carried out by the behaviour engine)."""

    method: str
    """The request that is (part of) a session's turn."""
    cancel_method: str
    """The notification that cancels every turn of its `sessionId`."""
    cancel_is_received: bool
    """True: the peer sends `cancel_method` to this side; False: this side sends it."""
    result: Mapping[str, Any]
    """The answer of a turn cancelled this way."""


@dataclass(frozen=True, slots=True)
class ResumeReplay:
    """How `method` (`session/resume`) replays a session's history when a session store answers
    it (`session_resume`). `cursor` None: it never replays. Else the params' `cursor` names where
    replay begins: omitted or null, nowhere; `{cursor_tag: start}`, every retained update; any
    other is answered `unsupported`. A replay ends with the `marker` update; `not_history` are
    the updates that are not history (never recorded, never replayed)."""

    method: str
    cursor: str | None
    cursor_tag: str = ""
    start: str = ""
    unsupported: int = 0
    marker: str = ""
    not_history: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Behaviour:
    negotiation: Negotiation
    lifecycle: PromptLifecycle | None
    capabilities: tuple[Capability, ...] = ()
    meta_policy: MetaPolicy | None = None
    """The `_meta` policy of `session_info_update`, None when the edition has none."""
    meta_alternatives: tuple[MetaPolicy, ...] = ()
    cancel_outcomes: Mapping[str, Any] = field(default_factory=dict)
    """method → the result of a request of it cancelled by the peer's `$/cancel_request`."""
    target_cancels: tuple[TargetCancel, ...] = ()
    turn_rules: tuple[TurnRule, ...] = ()
    """v1's turn rules, one per request it applies to (`turn_rule_for` picks a side's)."""
    resume: ResumeReplay | None = None
    """How a session store answers `session/resume` (None: it does not)."""

    def turn_rule_for(self, requests: Iterable[str]) -> TurnRule | None:
        """The turn rule of the side handling `requests` (request method names), if any."""
        handled = set(requests)
        return next((rule for rule in self.turn_rules if rule.method in handled), None)

    def capability(self, method: str) -> Capability | None:
        return next((c for c in self.capabilities if c.method == method), None)

    def negotiate(self, asked: Any) -> int | None:
        """The version to answer a client that asked for `asked` (None: unsupported)."""
        ours = self.negotiation.version
        if isinstance(asked, int) and not isinstance(asked, bool) and asked < ours:
            return None if self.negotiation.unsupported is not None else ours
        return ours


def advertise(result: dict[str, Any], capability: Capability) -> None:
    """Set `capability` in an `initialize` result's wire form, keeping what is already there
    (an object set by the handler is completed, never replaced)."""
    node = result
    *parents, last = capability.path
    for key in parents:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    if node.get(last) is None:
        node[last] = capability.value
