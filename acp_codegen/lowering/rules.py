"""The behaviour rule table: what an SDK must do per protocol beyond the types, keyed by meaning.

What an SDK must do (which capability advertises a method, the `_meta` policy of an update, the
outcome of a cancelled request, the prompt lifecycle, version negotiation) is stated in the
schemas' descriptions and the spec's prose, not in a machine-readable form. `RULES` states it once
per protocol (`v1`, `v2`, both channels). Each rule names what it needs of a schema (`Needs`):
methods, fields, capability paths, union tags, accepted values, error codes, and the description
text it rests on. `acp_codegen.lowering.behaviour` decides, per edition, which rules apply.

A protocol's single-valued rules (its `Negotiation`, its `PromptLifecycle`) may be listed more than
once, most specific first: the first one an edition supports is its rule, the rest do not apply.
"""

from __future__ import annotations

from acp_codegen.ir import TurnRule
from acp_codegen.ir.behaviour import (
    CancelOutcome,
    Capability,
    MetaPolicy,
    MetaRule,
    Negotiation,
    PromptAnswer,
    PromptLifecycle,
    PromptRetry,
    StateUpdates,
    TargetCancel,
)
from acp_codegen.lowering.replay_rules import REPLAY_RULES
from acp_codegen.lowering.rule_needs import NOTIFICATION, REQUEST, Needs, Rule

V2_SESSION_BASELINE_KINDS = (
    ("session/new", REQUEST),
    ("session/list", REQUEST),
    ("session/resume", REQUEST),
    ("session/close", REQUEST),
    ("session/prompt", REQUEST),
    ("session/cancel", NOTIFICATION),
)
"""v2's baseline session methods that the agent receives (`AgentCapabilities.session`); the
baseline's `session/update` is the agent's to send, so serving it asks nothing of the agent."""
V2_SESSION_BASELINE = tuple(method for method, _ in V2_SESSION_BASELINE_KINDS)

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
            codes=(-32022,),
            quotes=(("InitializeResponse", "initialization fails with error code -32022"),),
        ),
    ),
    Rule(
        "v2",
        "initialize answers the version asked when supported, else the agent's latest",
        Negotiation(
            "initialize",
            "protocolVersion",
            2,
            None,
            "InitializeResponse.protocolVersion (v2 schemas before -32022): the protocol version "
            "the client specified if supported by the agent, or the latest protocol version "
            "supported by the agent.",
        ),
        Needs(
            methods=(("initialize", REQUEST),),
            fields=(("InitializeResponse", "protocolVersion"),),
            quotes=(
                ("InitializeResponse", "or the latest protocol version supported by the agent"),
            ),
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
                user_chunk="user_message_chunk",
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
                ("SessionUpdate", "sessionUpdate", "user_message_chunk"),
                ("SessionUpdate", "sessionUpdate", "agent_message_chunk"),
                ("StateUpdate", "state", "running"),
                ("StateUpdate", "state", "idle"),
                ("StateUpdate", "state", "requires_action"),
            ),
            values=(
                ("IdleStateUpdate", "stopReason", "end_turn"),
                ("IdleStateUpdate", "stopReason", "cancelled"),
                ("IdleStateUpdate", "stopReason", "error"),
            ),
            quotes=(
                ("PromptResponse", "Processing and completion are reported through `state_update`"),
                ("StateUpdate", "the agent MUST report `running` when foreground work starts"),
                ("StateUpdate", "A new session defaults to idle"),
                (
                    "CancelSessionNotification",
                    (
                        "cancel a session's foreground work and its prompts",
                        # schema crate 1.20: reviewed, the rule holds (a cancel reaches the work
                        # and the prompts pending when it arrives, not later ones).
                        "Cancels the named session's active foreground work and earlier prompts "
                        "not yet inserted.",
                    ),
                ),
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
    Rule(
        "v2",
        "a retried prompt is answered with the message its first attempt inserted",
        PromptRetry(
            "session/prompt",
            "idempotencyKey",
            "PromptRequest.idempotencyKey: The Client generates the key and sends the same key on "
            "every attempt for the same submission. A retry of a recorded insertion returns the "
            "original `messageId` without inserting another message.",
        ),
        Needs(
            methods=(("session/prompt", REQUEST),),
            fields=(("PromptRequest", "idempotencyKey"), ("PromptResponse", "messageId")),
            quotes=(
                (
                    "PromptRequest",
                    "A retry of a recorded insertion returns the original `messageId` without "
                    "inserting another message.",
                ),
                (
                    "PromptRequest",
                    "For a live-only message, it MUST recognize the key while the session stays "
                    "active on a connection.",
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
            V2_SESSION_BASELINE,
        ),
        Needs(
            methods=tuple((m, kind) for m, kind in V2_SESSION_BASELINE_KINDS),
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
            # Inside `capabilities.session`: advertising it advertises the baseline too.
            (*V2_SESSION_BASELINE, "session/delete"),
        ),
        Needs(
            methods=(("session/delete", REQUEST),),
            paths=(("InitializeResponse", ("capabilities", "session", "delete")),),
        ),
    ),
    *REPLAY_RULES,
)
"""Every behaviour rule, keyed by meaning: (protocol, what the rule says)."""
