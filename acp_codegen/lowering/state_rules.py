"""The client-state table of a protocol whose schema has no `x-state` annotations yet (v1).

v2's schemas say, as data, what each session update does to the state a client keeps (`x-state`,
`acp_codegen.lowering.state`). v1's do not, and the agents people run today speak v1. This table
says it for v1 in the same four actions (`upsert`, `append`, `replace`, `remove`), keyed by v1's
update variants, as behaviour rules (`lowering.rule_needs.Rule` with a `StateRule` value): each
entry needs its variant and the fields it reads, and is not part of an edition whose schema lacks
one (`Behaviour.absent` names the reason). Lowered into the same IR nodes as the schema's own
annotations (`StateAnnotation`, with `rule` set), so a target sees one shape.

v1's message chunks may carry no `messageId` ("A unique identifier for the message", optional in
v1's `ContentChunk`): such a chunk appends to the message of the session's current prompt turn
(`fallback="turn"`; the turn advances with each `session/prompt` the client sends), so one
prompt turn's streamed agent text is one agent message.
"""

from __future__ import annotations

from acp_codegen.ir import MethodKind
from acp_codegen.ir.state import StateEffect, StateRule
from acp_codegen.lowering.rule_needs import Needs, Rule

UNION, TAG = "SessionUpdate", "sessionUpdate"


def _entry(
    variant: str, payload: str, reads: tuple[str, ...], spec: str, *effects: StateEffect
) -> Rule:
    """The rule for `variant` of v1's `SessionUpdate`: it needs the variant, and each field of
    `reads` on the variant's payload type `payload`."""
    return Rule(
        "v1",
        f"{variant} changes client state",
        StateRule(UNION, variant, effects, spec),
        Needs(tags=((UNION, TAG, variant),), fields=tuple((payload, f) for f in reads)),
    )


def _chunk(variant: str, target: str, who: str) -> Rule:
    return _entry(
        variant,
        "ContentChunk",
        ("content",),
        f"ContentChunk: a streamed chunk of the {who}; `messageId` (optional in v1) names the "
        "message, else the chunk belongs to the current prompt turn's message.",
        StateEffect(
            "session", "append", target, "messageId", "content", "content", fallback="turn"
        ),
    )


def _permission() -> Rule:
    """A permission request's tool call, upserted as v2's schema annotates its own
    (`RequestPermissionRequest`'s `x-state`): the client shows what it is asked about."""
    return Rule(
        "v1",
        "session/request_permission changes client state",
        StateRule(
            "RequestPermissionRequest",
            None,
            (
                StateEffect(
                    "session", "upsert", "toolCall", "toolCall.toolCallId", value="toolCall"
                ),
            ),
            "RequestPermissionRequest.toolCall: details about the tool call requiring "
            "permission; upserted by its `toolCallId` like a `tool_call_update`.",
        ),
        Needs(
            methods=(("session/request_permission", MethodKind.REQUEST),),
            paths=(("RequestPermissionRequest", ("toolCall", "toolCallId")),),
        ),
    )


def _replace(variant: str, payload: str, target: str, value: str | None, spec: str) -> Rule:
    reads = () if value is None else (value,)
    return _entry(
        variant, payload, reads, spec, StateEffect("session", "replace", target, value=value)
    )


def _upsert(variant: str, payload: str, target: str, key: str | None, spec: str) -> Rule:
    reads = () if key is None else (key,)
    return _entry(variant, payload, reads, spec, StateEffect("session", "upsert", target, key))


STATE_RULES: tuple[Rule, ...] = (
    _chunk("user_message_chunk", "userMessage", "user's message"),
    _chunk("agent_message_chunk", "agentMessage", "agent's response"),
    _chunk("agent_thought_chunk", "agentThought", "agent's internal reasoning"),
    _upsert(
        "tool_call",
        "ToolCall",
        "toolCall",
        "toolCallId",
        "ToolCall: a tool call the language model has requested, by `toolCallId`.",
    ),
    _upsert(
        "tool_call_update",
        "ToolCallUpdate",
        "toolCall",
        "toolCallId",
        "ToolCallUpdate: an update to an existing tool call; all fields except the ID are "
        "optional, only changed fields need be included.",
    ),
    _replace(
        "plan",
        "Plan",
        "plan",
        None,
        "Plan: when updating a plan, the agent must send a complete list of all entries; the "
        "client replaces the current plan completely.",
    ),
    _replace(
        "available_commands_update",
        "AvailableCommandsUpdate",
        "availableCommands",
        "availableCommands",
        "AvailableCommandsUpdate: the commands the agent can execute, replacing the list.",
    ),
    _replace(
        "current_mode_update",
        "CurrentModeUpdate",
        "currentModeId",
        "currentModeId",
        "CurrentModeUpdate: the ID of the current mode.",
    ),
    _replace(
        "config_option_update",
        "ConfigOptionUpdate",
        "configOptions",
        "configOptions",
        "ConfigOptionUpdate: the full set of configuration options and their current values.",
    ),
    _upsert(
        "session_info_update",
        "SessionInfoUpdate",
        "sessionInfo",
        None,
        "SessionInfoUpdate: only include fields that have changed; omitted fields are left "
        "unchanged, `null` clears a field; `_meta` by the edition's `_meta` policy.",
    ),
    _upsert(
        "usage_update",
        "UsageUpdate",
        "usage",
        None,
        "UsageUpdate: context window and cost update for the session.",
    ),
    _permission(),
)
"""v1's client-state table, in the order of v1's `SessionUpdate` variants, then the permission
request (v2's schema annotates both)."""
