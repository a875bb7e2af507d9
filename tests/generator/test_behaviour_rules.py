"""Behaviour rules (`acp_codegen.lowering.rules`, applied by `acp_codegen.lowering.behaviour`),
each from a small inline schema: a rule becomes IR data where the schema has what it is about, is
simply not part of an edition lacking a method, type, field or tag it is about (never a problem),
and is a review finding naming the rule and its JSON pointer where a quoted sentence is gone."""

from __future__ import annotations

from typing import Any

from acp_codegen import ir
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.rules import RULES
from acp_codegen.pipeline import load_specification

STRING = {"type": "string"}


def method(name: str, side: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "x-method": name, "x-side": side}


def const(tag: str, value: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {tag: {"type": "string", "const": value}, **props},
        "required": [tag],
    }


def lower(defs: dict[str, Any], protocol: str, *names: str) -> ir.Edition:
    """`defs` lowered with the rules of `protocol` whose names start with one of `names`."""
    rules = [r for r in RULES if r.protocol == protocol and r.name.startswith(names)]
    assert rules, names
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return lower_edition(
        doc,
        protocol=protocol,
        channel=ir.Stability.STABLE,
        source="inline.json",
        sha256="0",
        rules=rules,
    )


def absent(defs: dict[str, Any], protocol: str, *names: str) -> list[str]:
    """The reasons the named rules are not part of the edition `defs` lowers to (lowering
    never fails on a rule)."""
    edition = lower(defs, protocol, *names)
    return [f"{r.name}: {r.reason}" for r in edition.behaviour.absent]


PERMISSION_V2 = {
    "RequestPermissionRequest": method("session/request_permission", "client"),
    "RequestPermissionResponse": {
        **method("session/request_permission", "client"),
        "properties": {"outcome": {"$ref": "#/$defs/RequestPermissionOutcome"}},
        "required": ["outcome"],
    },
    "RequestPermissionOutcome": {
        "anyOf": [
            {
                **const("outcome", "cancelled"),
                "description": "The client answers a request the agent cancels with "
                "`$/cancel_request`\nwith this outcome.",
            },
            const("outcome", "selected", optionId=STRING),
        ]
    },
}


def test_a_permission_request_cancelled_by_cancel_request_is_answered_cancelled_in_v2() -> None:
    """RequestPermissionOutcome: "The client answers a request the agent cancels with
    `$/cancel_request` with this outcome." (the quote matches across line breaks)."""
    edition = lower(PERMISSION_V2, "v2", "$/cancel_request")
    assert edition.behaviour.cancel_outcomes == (
        ir.CancelOutcome(
            "session/request_permission",
            {"outcome": {"outcome": "cancelled"}},
            edition.behaviour.cancel_outcomes[0].spec,
        ),
    )


def test_a_rule_whose_quoted_text_is_gone_still_applies_and_is_one_review_finding() -> None:
    outcome = dict(PERMISSION_V2["RequestPermissionOutcome"]["anyOf"][0])
    outcome["description"] = "Cancelled."
    defs = {**PERMISSION_V2, "RequestPermissionOutcome": {"anyOf": [outcome]}}
    edition = lower(defs, "v2", "$/cancel_request")
    assert [o.method for o in edition.behaviour.cancel_outcomes] == ["session/request_permission"]
    (finding,) = edition.review
    assert finding.pointer == "/$defs/RequestPermissionOutcome/description"
    assert "v2 '$/cancel_request answers a permission request `cancelled`' applies" in str(finding)
    assert "no longer says 'The client answers a request the agent cancels" in str(finding)
    (record,) = edition.behaviour.rules
    assert [q.pointer for q in record.quotes] == [None]


def test_the_rules_list_the_schema_text_they_rest_on_with_its_pointer() -> None:
    (record,) = lower(PERMISSION_V2, "v2", "$/cancel_request").behaviour.rules
    (quote,) = record.quotes
    assert quote.pointer == "/$defs/RequestPermissionOutcome/anyOf/0/description"
    assert quote.text.startswith("The client answers a request the agent cancels")


def test_a_rule_whose_method_the_edition_lacks_is_not_part_of_it() -> None:
    defs = {k: v for k, v in PERMISSION_V2.items() if k != "RequestPermissionRequest"}
    edition = lower(defs, "v2", "$/cancel_request")
    assert edition.behaviour.cancel_outcomes == () and edition.review == ()
    assert absent(defs, "v2", "$/cancel_request") == [
        "$/cancel_request answers a permission request `cancelled`: "
        "the schema has no request `session/request_permission`"
    ]


def test_a_result_the_schema_does_not_accept_leaves_the_rule_out() -> None:
    """v1's turn rule answers a cancelled prompt `{"stopReason": "cancelled"}`: a v2-like result
    (`messageId` required) cannot carry it, so the rule is not part of that edition."""
    defs = {
        "PromptRequest": method("session/prompt", "agent"),
        "PromptResponse": {
            **method("session/prompt", "agent", messageId=STRING),
            "required": ["messageId"],
        },
        "CancelNotification": method("session/cancel", "agent"),
    }
    found = absent(defs, "v1", "session/cancel answers the agent's prompt turn")
    assert any("`PromptResponse` does not accept {'stopReason': 'cancelled'}" in p for p in found)
    edition = lower(defs, "v1", "session/cancel answers the agent's prompt turn")
    assert edition.behaviour.turn_rules == ()


def test_v1_turn_rules_are_behaviour_entries_of_the_role_handling_the_request() -> None:
    """prompt-turn § Cancellation: `session/cancel` ends the agent's prompt with the `cancelled`
    stop reason."""
    defs = {
        "PromptRequest": method("session/prompt", "agent"),
        "PromptResponse": method("session/prompt", "agent", stopReason=STRING),
        "CancelNotification": method("session/cancel", "agent"),
    }
    edition = lower(defs, "v1", "session/cancel answers the agent's prompt turn")
    (rule,) = edition.behaviour.turn_rules
    assert rule.result == {"stopReason": "cancelled"} and rule.received
    assert edition.behaviour.turn_rule_for(m.name for m in edition.role("agent").requests) is rule
    assert edition.behaviour.turn_rule_for(m.name for m in edition.role("client").requests) is None


def test_v2_session_info_update_patches_meta_by_top_level_key() -> None:
    defs = {
        "SessionInfoUpdate": {
            "type": "object",
            "properties": {
                "_meta": {
                    "type": ["object", "null"],
                    "description": "An object patches the stored metadata by top-level key.",
                }
            },
        }
    }
    edition = lower(defs, "v2", "session_info_update")
    rule = edition.behaviour.meta_rule("SessionInfoUpdate")
    assert rule is not None and rule.policy is ir.MetaPolicy.PATCH and rule.alternatives == ()
    v1 = lower(defs, "v1", "session_info_update").behaviour.meta_rule("SessionInfoUpdate")
    assert v1 is not None and v1.policy is ir.MetaPolicy.MERGE
    found = absent({"SessionInfoUpdate": {"type": "object"}}, "v2", "session_info_update")
    assert any("`SessionInfoUpdate` has no field `_meta`" in p for p in found)


def test_a_capability_path_is_followed_through_refs_and_nullable_unions() -> None:
    """AgentCapabilities.session: "Supplying `{}` means the agent supports the baseline session
    methods"."""
    defs = {
        "NewSessionRequest": method("session/new", "agent"),
        "ListSessionsRequest": method("session/list", "agent"),
        "ResumeSessionRequest": method("session/resume", "agent"),
        "CloseSessionRequest": method("session/close", "agent"),
        "PromptRequest": method("session/prompt", "agent"),
        "CancelNotification": method("session/cancel", "agent"),
        "InitializeResponse": method(
            "initialize", "agent", capabilities={"$ref": "#/$defs/AgentCapabilities"}
        ),
        "AgentCapabilities": {
            "type": "object",
            "properties": {
                "session": {
                    "anyOf": [{"$ref": "#/$defs/SessionCapabilities"}, {"type": "null"}],
                    "description": "Supplying `{}` means the agent supports the baseline.",
                }
            },
        },
        "SessionCapabilities": {"type": "object", "properties": {}},
    }
    edition = lower(defs, "v2", "the baseline session methods")
    capability = edition.behaviour.capability("session/list")
    assert capability is not None and capability.path == ("capabilities", "session")
    # `{}` promises the whole baseline: advertised only when the agent serves all of it.
    assert capability.requires == (
        "session/new",
        "session/list",
        "session/resume",
        "session/close",
        "session/prompt",
        "session/cancel",
    )
    defs["AgentCapabilities"]["properties"] = {"sessions": {"type": "object"}}
    found = absent(defs, "v2", "the baseline session methods")
    assert any("`InitializeResponse` has no `capabilities.session`" in p for p in found)


def test_v2_negotiation_answers_minus_32022_where_the_schema_names_it() -> None:
    """InitializeResponse.protocolVersion: "If no such version exists, initialization fails with
    error code -32022". A v2 schema without that code (2.0.2 and before) says "the protocol
    version the client specified if supported by the agent, or the latest protocol version
    supported by the agent": the second negotiation rule, with no error."""
    defs = {
        "InitializeRequest": method("initialize", "agent"),
        "InitializeResponse": method(
            "initialize",
            "agent",
            protocolVersion={
                "type": "integer",
                "description": "If no such version exists,\ninitialization fails with error code "
                "-32022.",
            },
        ),
        "ErrorCode": {"anyOf": [{"type": "integer", "const": -32022}, {"type": "integer"}]},
    }
    negotiation = lower(defs, "v2", "initialize").behaviour.negotiation
    assert (negotiation.version, negotiation.unsupported) == (2, -32022)
    defs["ErrorCode"] = {"anyOf": [{"type": "integer"}]}
    older = lower(defs, "v2", "initialize")
    assert (older.behaviour.negotiation.version, older.behaviour.negotiation.unsupported) == (
        2,
        None,
    )
    assert [r.name for r in older.behaviour.rules] == [
        "initialize answers the version asked when supported, else the agent's latest"
    ]
    assert any("the schema names no error code -32022" in p for p in absent(defs, "v2", "init"))


def test_v2_target_cancels_name_their_target_field() -> None:
    """CancelToolCallRequest: "The Agent responds with `-32602` if the tool call is unknown"."""
    defs = {
        "CancelToolCallRequest": {
            **method("tool_call/cancel", "agent", toolCallId=STRING),
            "description": "The Agent responds with `-32602` if the tool call is unknown.",
        },
        "CancelToolCallResponse": method("tool_call/cancel", "agent"),
    }
    edition = lower(defs, "v2", "tool_call/cancel")
    (target,) = edition.behaviour.target_cancels
    assert (target.method, target.target, target.error) == (
        "tool_call/cancel",
        "toolCallId",
        -32602,
    )


def test_the_v2_lifecycle_needs_the_state_update_variants() -> None:
    """The v2 lifecycle is checked against `SessionUpdate`'s and `StateUpdate`'s tags: without
    `state_update` the rule cannot be carried out."""
    defs = {
        "PromptRequest": method("session/prompt", "agent"),
        "PromptResponse": method("session/prompt", "agent", messageId=STRING),
        "SessionUpdate": {"anyOf": [const("sessionUpdate", "agent_message_chunk")]},
    }
    assert lower(defs, "v2", "session/prompt is answered at insertion").behaviour.lifecycle is None
    (found,) = absent(defs, "v2", "session/prompt is answered at insertion")
    assert found.endswith("the schema has no notification `session/cancel`")


def test_the_v2_lifecycle_reports_requires_action_around_the_requests_that_wait_on_the_user() -> (
    None
):
    """StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as a
    whole cannot progress without user action, including permissions or elicitations": the
    requests are lifecycle data, and a schema without them has no such lifecycle."""
    spec = load_specification()
    [v2] = [e for e in spec.editions if e.key == "v2"]
    assert v2.behaviour.lifecycle is not None and v2.behaviour.lifecycle.states is not None
    user_action = v2.behaviour.lifecycle.states.user_action
    assert user_action == ("session/request_permission", "elicitation/create")
    assert v2.review == ()
    defs = {"PromptRequest": method("session/prompt", "agent")}
    (found,) = absent(defs, "v2", "session/prompt is answered at insertion")
    assert "the schema has no notification `session/cancel`" in found, found


def test_every_pinned_edition_meets_every_rule_of_its_protocol() -> None:
    """The pinned schemas carry every rule with no review finding: the lifecycles differ by
    protocol, and each protocol has one negotiation and one lifecycle."""
    spec = load_specification()
    assert spec.review == ()
    assert all(e.behaviour.absent == () for e in spec.editions)
    answers = {e.key: e.behaviour.lifecycle.answer for e in spec.editions if e.behaviour.lifecycle}
    assert answers["v1"] is ir.PromptAnswer.COMPLETION
    assert answers["v2"] is ir.PromptAnswer.INSERTION
    for protocol in ("v1", "v2"):
        kinds = [type(r.value) for r in RULES if r.protocol == protocol]
        assert kinds.count(ir.PromptLifecycle) == 1 and kinds.count(ir.Negotiation) >= 1
