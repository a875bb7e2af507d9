"""Protocol behaviour per edition: one table keyed by meaning, checked against each schema.

What an SDK must do beyond the types (which capability advertises a method, the `_meta` policy of
an update, the outcome of a cancelled request, the prompt lifecycle, version negotiation) is stated
in the schemas' descriptions and the spec's prose, not in a machine-readable form. `RULES` states
it once, per protocol (`v1`, `v2`, both channels), each entry with what it needs of the schema:
methods, fields, capability paths, union tags, accepted results and the quoted description text it
implements. `lower_behaviour` checks every entry of an edition's protocol against the document and
reports each unmet need as a problem naming the rule, so a schema change that moves a method, a
field or a rule's wording fails generation instead of silently changing behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from acp_codegen.ir import Method, MethodKind, TurnRule
from acp_codegen.ir.behaviour import (
    Behaviour,
    CancelOutcome,
    Capability,
    MetaPolicy,
    MetaRule,
    Negotiation,
    PromptAnswer,
    PromptLifecycle,
    StateUpdates,
    TargetCancel,
)
from acp_codegen.lowering.context import def_pointer
from acp_codegen.lowering.nodes import JsonObject
from acp_codegen.problems import SchemaProblem, pointer_join

REQUEST, NOTIFICATION = MethodKind.REQUEST, MethodKind.NOTIFICATION


@dataclass(frozen=True, slots=True)
class Needs:
    """What a rule needs of a schema, each checked where the rule applies."""

    methods: tuple[tuple[str, MethodKind], ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    """(definition, property): the property exists on it (own, or through `allOf`)."""
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(definition, wire keys): each key is a property of the one before (through refs)."""
    tags: tuple[tuple[str, str, str], ...] = ()
    """(union definition, tag property, value): a branch carries that constant."""
    accepts: tuple[tuple[str, Any], ...] = ()
    """(definition, value): the definition accepts the value (the rule's answer)."""
    quotes: tuple[tuple[str, str], ...] = ()
    """(definition, text): a description under the definition says it (whitespace folded)."""
    codes: tuple[int, ...] = ()
    """Named `ErrorCode` members."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One behaviour rule of one protocol: the IR value it contributes, and what it needs."""

    protocol: str
    name: str
    value: Any
    needs: Needs = field(default_factory=Needs)


V1_PROMPT = "prompt-turn § Cancellation"
V1_PROMPT_CANCELLED = (
    f"{V1_PROMPT}: the Agent MUST respond to the original `session/prompt` request with the "
    "`cancelled` stop reason."
)
V1_PROMPT_NEEDS = Needs(
    methods=(("session/prompt", REQUEST), ("session/cancel", NOTIFICATION)),
    accepts=(("PromptResponse", {"stopReason": "cancelled"}),),
)

RULES: tuple[Rule, ...] = (
    # -- version negotiation ---------------------------------------------------------------
    Rule(
        "v1",
        "initialize answers the agent's own version",
        Negotiation(
            "initialize",
            "protocolVersion",
            1,
            None,
            "initialization.mdx: the Agent MUST respond with the latest protocol version it "
            "supports.",
        ),
        Needs(
            methods=(("initialize", REQUEST),), fields=(("InitializeResponse", "protocolVersion"),)
        ),
    ),
    Rule(
        "v2",
        "initialize answers the highest version at or below the one asked",
        Negotiation(
            "initialize",
            "protocolVersion",
            2,
            -32022,
            "InitializeResponse.protocolVersion: the highest protocol version supported by the "
            "agent that is at or below the version requested by the client. If no such version "
            "exists, initialization fails with error code -32022.",
        ),
        Needs(
            methods=(("initialize", REQUEST),),
            fields=(("InitializeResponse", "protocolVersion"),),
            quotes=(("InitializeResponse", "initialization fails with error code -32022"),),
            codes=(-32022,),
        ),
    ),
    # -- the prompt lifecycle ----------------------------------------------------------------
    Rule(
        "v1",
        "session/prompt is answered when the turn completes",
        PromptLifecycle(
            prompt="session/prompt",
            answer=PromptAnswer.COMPLETION,
            cancel="session/cancel",
            close=None,
            message_id=None,
            states=None,
            end_turn="end_turn",
            cancelled="cancelled",
            failed=None,
            spec=V1_PROMPT_CANCELLED,
        ),
        V1_PROMPT_NEEDS,
    ),
    Rule(
        "v2",
        "session/prompt is answered at insertion; state updates report the work",
        PromptLifecycle(
            prompt="session/prompt",
            answer=PromptAnswer.INSERTION,
            cancel="session/cancel",
            close="session/close",
            message_id="messageId",
            states=StateUpdates(
                notification="session/update",
                update_tag="sessionUpdate",
                update_value="state_update",
                state_tag="state",
                running="running",
                idle="idle",
                requires_action="requires_action",
                stop_reason="stopReason",
                user_message="user_message",
                agent_chunk="agent_message_chunk",
                user_action=("session/request_permission", "elicitation/create"),
            ),
            end_turn="end_turn",
            cancelled="cancelled",
            failed="error",
            spec="StateUpdate: the agent MUST report `running` when foreground work starts, or "
            "`requires_action` if it starts blocked on user action, and `idle` when it ends.",
        ),
        Needs(
            methods=(
                ("session/prompt", REQUEST),
                ("session/cancel", NOTIFICATION),
                ("session/close", REQUEST),
                ("session/update", NOTIFICATION),
                ("session/request_permission", REQUEST),
                ("elicitation/create", REQUEST),
            ),
            fields=(("PromptResponse", "messageId"), ("IdleStateUpdate", "stopReason")),
            tags=(
                ("SessionUpdate", "sessionUpdate", "state_update"),
                ("SessionUpdate", "sessionUpdate", "user_message"),
                ("SessionUpdate", "sessionUpdate", "agent_message_chunk"),
                ("StateUpdate", "state", "running"),
                ("StateUpdate", "state", "idle"),
                ("StateUpdate", "state", "requires_action"),
                ("IdleStateUpdate", "stopReason", "end_turn"),
                ("IdleStateUpdate", "stopReason", "cancelled"),
                ("IdleStateUpdate", "stopReason", "error"),
            ),
            quotes=(
                ("PromptResponse", "Processing and completion are reported through `state_update`"),
                ("StateUpdate", "the agent MUST report `running` when foreground work starts"),
                ("StateUpdate", "A new session defaults to idle"),
                ("CancelSessionNotification", "cancel a session's foreground work and its prompts"),
                ("CloseSessionRequest", "before responding successfully to `session/close`"),
                ("CloseSessionRequest", "the Agent MUST answer that request with `-32800`"),
                (
                    "StateUpdate",
                    "The agent SHOULD report `requires_action` when the foreground workflow as a "
                    "whole cannot progress without user action, including permissions or "
                    "elicitations. Once reported, it MUST report `running` when progress resumes",
                ),
            ),
        ),
    ),
    # -- ACP's turn rules (v1's feature-level cancellation) ----------------------------------
    Rule(
        "v1",
        "session/cancel answers the agent's prompt turn `cancelled`",
        TurnRule(
            method="session/prompt",
            cancel="session/cancel",
            received=True,
            result={"stopReason": "cancelled"},
            spec=V1_PROMPT_CANCELLED,
        ),
        V1_PROMPT_NEEDS,
    ),
    Rule(
        "v1",
        "session/cancel answers the client's pending permission requests `cancelled`",
        TurnRule(
            method="session/request_permission",
            cancel="session/cancel",
            received=False,
            result={"outcome": {"outcome": "cancelled"}},
            spec=f"{V1_PROMPT}: the Client MUST respond to all pending "
            "`session/request_permission` requests with the `cancelled` outcome.",
        ),
        Needs(
            methods=(("session/request_permission", REQUEST), ("session/cancel", NOTIFICATION)),
            accepts=(("RequestPermissionResponse", {"outcome": {"outcome": "cancelled"}}),),
        ),
    ),
    # -- the outcome of a request cancelled with `$/cancel_request` --------------------------
    Rule(
        "v2",
        "$/cancel_request answers a permission request `cancelled`",
        CancelOutcome(
            "session/request_permission",
            {"outcome": {"outcome": "cancelled"}},
            "RequestPermissionOutcome: the client answers a request the agent cancels with "
            "`$/cancel_request` with this outcome.",
        ),
        Needs(
            methods=(("session/request_permission", REQUEST),),
            accepts=(("RequestPermissionResponse", {"outcome": {"outcome": "cancelled"}}),),
            quotes=(
                (
                    "RequestPermissionOutcome",
                    "The client answers a request the agent cancels with `$/cancel_request` "
                    "with this outcome.",
                ),
            ),
        ),
    ),
    # -- cancelling one target -----------------------------------------------------------------
    *(
        Rule(
            "v2",
            f"{method} answers -32602 for an unknown, final or non-cancellable target",
            TargetCancel(
                method,
                target,
                -32602,
                f"{params}: the Agent responds with `-32602` if the {noun} is unknown, "
                f"{final}, or not cancellable.",
            ),
            Needs(
                methods=((method, REQUEST),),
                fields=((params, target),),
                quotes=((params, f"The Agent responds with `-32602` if the {noun} is unknown"),),
            ),
        )
        for method, params, target, noun, final in (
            (
                "tool_call/cancel",
                "CancelToolCallRequest",
                "toolCallId",
                "tool call",
                "already final",
            ),
            (
                "terminal/cancel",
                "CancelTerminalRequest",
                "terminalId",
                "terminal",
                "has already exited",
            ),
        )
    ),
    # -- the `_meta` policy of session_info_update ---------------------------------------------
    Rule(
        "v1",
        "session_info_update merges `_meta` (the RFD), or replaces it",
        MetaRule(
            "SessionInfoUpdate",
            MetaPolicy.MERGE,
            (MetaPolicy.REPLACE,),
            "session-info-update RFD (before PR #1573): merge semantics apply recursively; the "
            "stabilized v1 text leaves the object to clients and extensions to interpret.",
        ),
        Needs(fields=(("SessionInfoUpdate", "_meta"),)),
    ),
    Rule(
        "v2",
        "session_info_update patches `_meta` by top-level key",
        MetaRule(
            "SessionInfoUpdate",
            MetaPolicy.PATCH,
            (),
            "SessionInfoUpdate._meta: an object patches the stored metadata by top-level key: "
            "keys it omits are unchanged, a key set to `null` is removed, and any other value "
            "replaces that key's stored value without merging nested objects.",
        ),
        Needs(
            fields=(("SessionInfoUpdate", "_meta"),),
            quotes=(("SessionInfoUpdate", "patches the stored metadata by top-level key"),),
        ),
    ),
    # -- capabilities that advertise optional methods --------------------------------------------
    *(
        Rule(
            "v1",
            f"{method} is advertised by agentCapabilities.{'.'.join(path[1:])}",
            Capability(method, path, value, f"InitializeResponse: {'.'.join(path)}"),
            Needs(methods=((method, REQUEST),), paths=(("InitializeResponse", path),)),
        )
        for method, path, value in (
            ("session/list", ("agentCapabilities", "sessionCapabilities", "list"), {}),
            ("session/load", ("agentCapabilities", "loadSession"), True),
            ("session/resume", ("agentCapabilities", "sessionCapabilities", "resume"), {}),
            ("session/close", ("agentCapabilities", "sessionCapabilities", "close"), {}),
            ("session/delete", ("agentCapabilities", "sessionCapabilities", "delete"), {}),
        )
    ),
    Rule(
        "v2",
        "the baseline session methods are advertised by capabilities.session",
        Capability(
            "session/list",
            ("capabilities", "session"),
            {},
            "AgentCapabilities.session: Supplying `{}` means the agent supports the baseline "
            "session methods: `session/new`, `session/list`, `session/resume`, `session/close`, "
            "`session/prompt`, `session/cancel`, and `session/update`.",
        ),
        Needs(
            methods=(("session/list", REQUEST),),
            paths=(("InitializeResponse", ("capabilities", "session")),),
            quotes=(("AgentCapabilities", "Supplying `{}` means the agent supports the"),),
        ),
    ),
    Rule(
        "v2",
        "session/delete is advertised by capabilities.session.delete",
        Capability(
            "session/delete",
            ("capabilities", "session", "delete"),
            {},
            "SessionCapabilities.delete: Supplying `{}` means the agent supports deleting "
            "sessions from `session/list`.",
        ),
        Needs(
            methods=(("session/delete", REQUEST),),
            paths=(("InitializeResponse", ("capabilities", "session", "delete")),),
        ),
    ),
)
"""Every behaviour rule, keyed by meaning: (protocol, what the rule says)."""


def lower_behaviour(
    doc: JsonObject,
    *,
    protocol: str,
    methods: Sequence[Method],
    source: str,
    rules: Sequence[Rule],
) -> tuple[Behaviour, tuple[TurnRule, ...], list[SchemaProblem]]:
    """The behaviour of one edition from the `rules` of its protocol, its turn rules, and a
    problem for each need a rule does not find in `doc`."""
    mine = [rule for rule in rules if rule.protocol == protocol]
    problems = [
        SchemaProblem(source, pointer, f"behaviour rule {rule.protocol} {rule.name!r}: {message}")
        for rule in mine
        for pointer, message in _unmet(doc, methods, rule.needs)
    ]
    values = [rule.value for rule in mine]
    negotiation = _one(values, Negotiation) or Negotiation(
        "initialize", "protocolVersion", int(protocol.removeprefix("v")), None, "no rule given"
    )
    behaviour = Behaviour(
        negotiation=negotiation,
        lifecycle=_one(values, PromptLifecycle),
        capabilities=tuple(v for v in values if isinstance(v, Capability)),
        meta=tuple(v for v in values if isinstance(v, MetaRule)),
        cancel_outcomes=tuple(v for v in values if isinstance(v, CancelOutcome)),
        target_cancels=tuple(v for v in values if isinstance(v, TargetCancel)),
    )
    return behaviour, tuple(v for v in values if isinstance(v, TurnRule)), problems


def _one(values: list[Any], kind: type[Any]) -> Any:
    found = [v for v in values if isinstance(v, kind)]
    assert len(found) <= 1, f"the rule table gives a protocol two {kind.__name__}s"
    return found[0] if found else None


def _unmet(doc: JsonObject, methods: Sequence[Method], needs: Needs) -> Iterator[tuple[str, str]]:
    """(pointer, what is missing) for each need `doc` does not meet."""
    defs: JsonObject = doc.get("$defs", {})
    keys = {m.key for m in methods}
    for name, kind in needs.methods:
        if (name, kind) not in keys:
            yield "/$defs", f"the {kind.value} `{name}` is gone"
    for def_name, prop in needs.fields:
        if def_name not in defs:
            yield def_pointer(def_name), f"the type `{def_name}` is gone"
        elif _property(defs, defs[def_name], prop) is None:
            yield def_pointer(def_name), f"`{def_name}` has no field `{prop}`"
    for def_name, path in needs.paths:
        node: Any = defs.get(def_name)
        pointer = def_pointer(def_name)
        for key in path:
            node = None if node is None else _property(defs, node, key)
            if node is None:
                yield pointer, f"`{def_name}` has no `{'.'.join(path)}`"
                break
    for def_name, tag, value in needs.tags:
        if value not in _tag_values(defs, defs.get(def_name), tag):
            yield def_pointer(def_name), f"`{def_name}` has no variant `{tag}: {value}`"
    for def_name, value in needs.accepts:
        if def_name not in defs:
            yield def_pointer(def_name), f"the type `{def_name}` is gone"
        elif not _accepts(doc, def_name, value):
            yield def_pointer(def_name), f"`{def_name}` does not accept {value!r}"
    for def_name, text in needs.quotes:
        if _fold(text) not in _fold(" ".join(_descriptions(defs.get(def_name)))):
            yield pointer_join(def_pointer(def_name), "description"), f"no longer says {text!r}"
    codes = set(_tag_values(defs, defs.get("ErrorCode"), None))
    for code in needs.codes:
        if code not in codes:
            yield def_pointer("ErrorCode"), f"the error code {code} is gone"


def _resolve(defs: JsonObject, node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = defs.get(str(node["$ref"]).removeprefix("#/$defs/"))
    return node


def _parts(defs: JsonObject, node: Any) -> Iterator[JsonObject]:
    """`node` and every schema it is composed of (refs, `allOf`, non-null `anyOf`/`oneOf`)."""
    node = _resolve(defs, node)
    if not isinstance(node, dict):
        return
    yield node
    for keyword in ("allOf", "anyOf", "oneOf"):
        for part in node.get(keyword, []):
            if not (isinstance(part, dict) and part.get("type") == "null"):
                yield from _parts(defs, part)


def _property(defs: JsonObject, node: Any, name: str) -> Any:
    for part in _parts(defs, node):
        found = part.get("properties", {}).get(name)
        if found is not None:
            return found
    return None


def _tag_values(defs: JsonObject, node: Any, tag: str | None) -> Iterator[Any]:
    """The constants a union's branches give `tag` (None: the branches' own constants)."""
    for part in _parts(defs, node):
        if tag is None and "const" in part:
            yield part["const"]
        elif tag is not None:
            value = part.get("properties", {}).get(tag, {})
            if isinstance(value, dict) and "const" in value:
                yield value["const"]


def _descriptions(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from _descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _descriptions(item)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _accepts(doc: JsonObject, def_name: str, value: Any) -> bool:
    schema = {"$defs": doc["$defs"], "$ref": f"#/$defs/{def_name}"}
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))
