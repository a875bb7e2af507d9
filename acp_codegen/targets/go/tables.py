"""An edition's protocol surface as the Go templates need it: each method with its Go name (the
constant `Method<Name>`), and each role's methods by those names.

Roles, turn rules, error codes and behaviour are IR data the templates write as Go values
(`acp.Role`, `acp.Behaviour`), so the runtime reads them and never asks which edition it
speaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go.names import METHODS, go_name
from acp_codegen.targets.go.views import PackageView


@dataclass(frozen=True, slots=True)
class MethodView:
    method: ir.Method
    name: str
    """`SessionPrompt`: the method's Go name (its constant is `Method` + this)."""

    @property
    def constant(self) -> str:
        return "Method" + self.name

    @property
    def doc(self) -> str:
        summary = f"{self.constant} is the {self.method.kind.value} {self.method.name}."
        return f"{summary}\n\n{self.method.doc}" if self.method.doc.strip() else summary


@dataclass(frozen=True, slots=True)
class RuleView:
    """One behaviour rule around a role's method: `kind` (`negotiate`, `insert`, `close`, `cancel`
    (a notification), `outcome`, `target`) shapes the role's interface and its `Unimplemented`
    answers (the connection's `acp.BehaviourEngine` carries the rules out, from `Behaviour`);
    `ref` is the Go expression of its data in the edition's `Behaviour`."""

    kind: str
    ref: str
    target: ir.TargetCancel | None = None


def behaviour_rules(role: ir.Role, behaviour: ir.Behaviour) -> dict[str, RuleView]:
    """The behaviour rules around the methods `role` handles, from the IR's data."""
    requests = {m.name for m in role.requests}
    notifications = {m.name for m in role.notifications}
    rules: list[tuple[str, RuleView]] = []
    if behaviour.negotiation.method in requests:
        rules.append(
            (behaviour.negotiation.method, RuleView("negotiate", "&Behaviour.Negotiation"))
        )
    for i, outcome in enumerate(behaviour.cancel_outcomes):
        if outcome.method in requests:
            rules.append(
                (outcome.method, RuleView("outcome", f"Behaviour.CancelOutcomes[{i}].Result"))
            )
    for i, target in enumerate(behaviour.target_cancels):
        if target.method in requests:
            rules.append(
                (target.method, RuleView("target", f"Behaviour.TargetCancels[{i}]", target))
            )
    life = behaviour.lifecycle
    if life is not None and life.answer is ir.PromptAnswer.INSERTION:
        for kind, method, handled in (
            ("insert", life.prompt, requests),
            ("close", life.close, requests),
            ("cancel", life.cancel, notifications),
        ):
            if method in handled:
                rules.append((method, RuleView(kind, "Behaviour.Lifecycle")))
    return dict(rules)


PROVIDED: Mapping[tuple[str, str], str] = {
    ("client", "fs/read_text_file"): "read_file",
    ("client", "fs/write_text_file"): "write_file",
    ("agent", "session/list"): "list_sessions",
    ("agent", "session/load"): "load_session",
    ("agent", "session/resume"): "resume_session",
}
"""(role, method) → what the SDK answers it from when the user sets it on the role's
`Unimplemented` struct: `read_file` / `write_file` from its `Files *acp.FileService` (only under
its roots), `list_sessions` from its `Sessions *acp.SessionStore` or `SessionBackend` (and
advertised in the `initialize` answer, from the edition's `Behaviour.Capabilities`),
`load_session` / `resume_session` from the same store (the updates it recorded:
session_replay.go). Keyed by meaning: the names are the protocol's, the same in every edition
that has them."""

REPLAYED = frozenset({"load_session"})
"""What the store answers only in an edition whose prompt is answered at the turn's end (v1's
`session/load`); `session/resume` is answered where the edition has a rule for how it replays
(`Behaviour.resume`: v1's never replays, v2's from the client's `replayFrom`)."""


def provided(role: ir.Role, behaviour: ir.Behaviour) -> dict[str, str]:
    """The requests of `role` the SDK can answer (`PROVIDED`), by method name."""
    life = behaviour.lifecycle
    replays = life is None or life.answer is not ir.PromptAnswer.INSERTION
    resumes = behaviour.resume is not None and (
        behaviour.resume.cursor is None or (life is not None and life.states is not None)
    )
    return {
        m.name: PROVIDED[(role.name, m.name)]
        for m in role.requests
        if (role.name, m.name) in PROVIDED
        and (replays or PROVIDED[(role.name, m.name)] not in REPLAYED)
        and (resumes or PROVIDED[(role.name, m.name)] != "resume_session")
    }


def optional_requests(role: ir.Role, behaviour: ir.Behaviour) -> tuple[str, ...]:
    """The requests of `role` (the side answering the negotiation) that a capability requires."""
    answered = {m.name for m in role.requests}
    if behaviour.negotiation.method not in answered:
        return ()
    required = {m for c in behaviour.capabilities for m in c.requires}
    return tuple(m.name for m in role.requests if m.name in required)


def awaiting_user(role: ir.Role, behaviour: ir.Behaviour) -> frozenset[str]:
    """The requests `role` answers that a prompt's work awaits the user on."""
    life = behaviour.lifecycle
    states = None if life is None else life.states
    actions = set() if states is None else set(states.user_action)
    return frozenset(m.name for m in role.requests if m.name in actions)


def rule_ref(behaviour: ir.Behaviour, rule: ir.TurnRule | None) -> str:
    """The Go expression of `rule`, an entry of the edition's `Behaviour.TurnRules` (or `nil`)."""
    if rule is None:
        return "nil"
    return f"&Behaviour.TurnRules[{behaviour.turn_rules.index(rule)}]"


@dataclass(frozen=True, slots=True)
class RoleView:
    """A role as its Go file names it: the interface `Agent` (what an agent answers), the typed
    handle `AgentPeer` (the agent as a client calls it), `ConnectAgent`, `AgentOf(ctx)`."""

    role: ir.Role
    name: str
    requests: tuple[MethodView, ...]
    notifications: tuple[MethodView, ...]
    peer: str
    """The Go name of the role at the other end ("" when the edition has none)."""
    uses_wire: bool
    """A params or result type is a struct (decoded with `wire.Unmarshal`)."""

    rules: Mapping[str, RuleView] = field(default_factory=dict)
    """Method name → the behaviour rule the role's handler applies around the user's method
    (`rule_of`)."""
    awaits_user: frozenset[str] = frozenset()
    """The requests of this role that wait on the user (the lifecycle's `user_action`): its
    peer handle sends them with `acp.CallAwaitingUser`, so a prompt's work reports
    `requires_action` while one is pending."""
    provided: Mapping[str, str] = field(default_factory=dict)
    """Method name → what the role's `Unimplemented` struct answers it from when set
    (`PROVIDED`)."""
    rule: ir.TurnRule | None = None
    """The behaviour table's turn rule of a request this role handles (`turn_rule_for`); the
    role's `acp.Role.TurnRule` points at its entry of `Behaviour.TurnRules` (`rule_ref`), and the
    connection's `acp.BehaviourEngine` carries it out."""
    rule_ref: str = "nil"
    """The Go expression of `rule`: `&Behaviour.TurnRules[i]`, or `nil`."""
    index: int = 0
    """The role's index in the edition's `Roles` (its engine reads `&Roles[index]`)."""
    sent_rule: ir.TurnRule | None = None
    """The other role's turn rule when this role's peer handle sends its cancel (the client's
    `session/cancel` ends its own pending permission requests; `acp.Send` applies it)."""
    optional: tuple[str, ...] = ()
    """The requests a capability of the `initialize` answer advertises (`Capability.requires`):
    not in the role's interface, each its own one-method interface (`AgentWithSessionLoad`), so
    the SDK knows the handler serves one only when its type implements it, and advertises exactly
    what is served."""

    def rule_of(self, method: str) -> RuleView | None:
        """The behaviour rule around `method` in this role's handler (None: none)."""
        return self.rules.get(method)

    def is_optional(self, method: str) -> bool:
        return method in self.optional

    @property
    def names(self) -> tuple[str, ...]:
        """The package-level names the role's file declares."""
        n = self.name
        optional = tuple(
            f"{n}With{m.name}" for m in self.requests if m.method.name in self.optional
        )
        return (
            n,
            "Unimplemented" + n,
            n + "Handler",
            n + "Peer",
            "Connect" + n,
            n + "Of",
            *optional,
        )


class TablesView:
    """The method table, the roles and the error codes of one edition."""

    def __init__(self, edition: ir.Edition, view: PackageView) -> None:
        self.edition = edition
        names = METHODS.names(edition)
        self.methods = [MethodView(m, names[m.key]) for m in edition.methods]
        self.by_key = {m.method.key: m for m in self.methods}
        taken = view.package_names()
        for m in self.methods:
            if m.constant in taken:
                raise GenerationError(
                    f"{edition.source}: the Go name {m.constant!r} is both {taken[m.constant]} "
                    f"and the method {m.method.name!r}"
                )
        self.error_codes = [(go_name(e.name), e) for e in edition.error_codes]
        role_names = {r.name for r in edition.roles}
        self.roles = [
            RoleView(
                role,
                go_name(role.name),
                tuple(self.by_key[m.key] for m in role.requests),
                tuple(self.by_key[m.key] for m in role.notifications),
                go_name(role.peer) if role.peer in role_names else "",
                any(
                    view.kind(name) == "struct"
                    for m in (*role.requests, *role.notifications)
                    for name in (m.params, m.result)
                    if name is not None
                ),
                behaviour_rules(role, edition.behaviour),
                awaiting_user(role, edition.behaviour),
                provided(role, edition.behaviour),
                optional=optional_requests(role, edition.behaviour),
                rule=(rule := edition.behaviour.turn_rule_for(m.name for m in role.requests)),
                rule_ref=rule_ref(edition.behaviour, rule),
                index=index,
            )
            for index, role in enumerate(edition.roles)
        ]
        by_role = {r.role.name: r for r in self.roles}
        for i, r in enumerate(self.roles):
            other = by_role.get(r.role.peer)
            rule = other.rule if other is not None else None
            if other is not None and rule is not None and not rule.received:
                self.roles[i] = replace(r, sent_rule=rule)
        for r in self.roles:
            for name in r.names:
                if name in taken:
                    raise GenerationError(
                        f"{edition.source}: the Go name {name!r} is both {taken[name]} and a "
                        f"name of the role {r.role.name!r}"
                    )
