"""Names for the classes datamodel-code-generator would otherwise number (`McpServerHttp2`).

`RENAMES` is the one table of them, keyed by the JSON pointer of the schema node the class comes
from (in the document after `python_schema_pass.distribute_nested_unions`, whose pointers keep the
def names of the original). A numbered class whose pointer is not in the table fails generation:
a schema bump that adds one must add its name here, on purpose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from codegen.problems import GenerationError

NUMBERED = re.compile(r"[A-Za-z]\d+$")

RENAMES: Mapping[str, str] = {
    # JSON-RPC response envelopes: their `Result`/`Error` branches are untitled objects.
    "#/$defs/AgentResponse/anyOf/0": "AgentResultResponse",
    "#/$defs/AgentResponse/anyOf/1": "AgentErrorResponse",
    "#/$defs/ClientResponse/anyOf/0": "ClientResultResponse",
    "#/$defs/ClientResponse/anyOf/1": "ClientErrorResponse",
    "#/$defs/MessageMcpResponse/anyOf/0": "MessageMcpResultResponse",
    "#/$defs/MessageMcpResponse/anyOf/1": "MessageMcpErrorResponse",
    "#/$defs/ProxyResponse/anyOf/0": "ProxyResultResponse",
    "#/$defs/ProxyResponse/anyOf/1": "ProxyErrorResponse",
    # Tagged variants whose tag-derived name collides with the `$def` they extend
    # (`McpServerHttp` + `type: "http"` would be `McpServerHttp` again).
    "#/$defs/AuthMethod/anyOf/0": "TerminalAuthMethod",
    "#/$defs/McpServer/anyOf/0": "HttpMcpServer",
    "#/$defs/McpServer/anyOf/1": "SseMcpServer",
    "#/$defs/McpServer/anyOf/2": "AcpMcpServer",
    "#/$defs/MultiSelectItems/anyOf/0": "StringMultiSelectItemsVariant",
    "#/$defs/ElicitationPropertySchema/anyOf/0": "StringElicitationPropertySchema",
    "#/$defs/ElicitationPropertySchema/anyOf/1": "NumberElicitationPropertySchema",
    "#/$defs/ElicitationPropertySchema/anyOf/2": "IntegerElicitationPropertySchema",
    "#/$defs/ElicitationPropertySchema/anyOf/3": "BooleanElicitationPropertySchema",
    "#/$defs/ElicitationPropertySchema/anyOf/4": "MultiSelectElicitationPropertySchema",
    "#/$defs/CreateElicitationResponse/anyOf/0": "AcceptElicitationResponse",
    "#/$defs/CreateElicitationResponse/anyOf/1": "DeclineElicitationResponse",
    "#/$defs/CreateElicitationResponse/anyOf/2": "CancelElicitationResponse",
    # Elicitation mode x scope, distributed by the pre-pass: `{mode}{scope}`.
    "#/$defs/ElicitationFormMode/anyOf/0": "ElicitationFormModeSession",
    "#/$defs/ElicitationFormMode/anyOf/1": "ElicitationFormModeRequest",
    "#/$defs/ElicitationUrlMode/anyOf/0": "ElicitationUrlModeSession",
    "#/$defs/ElicitationUrlMode/anyOf/1": "ElicitationUrlModeRequest",
    "#/$defs/CreateElicitationRequest/anyOf/0": "CreateFormElicitationSessionRequest",
    "#/$defs/CreateElicitationRequest/anyOf/1": "CreateFormElicitationRequestRequest",
    "#/$defs/CreateElicitationRequest/anyOf/2": "CreateUrlElicitationSessionRequest",
    "#/$defs/CreateElicitationRequest/anyOf/3": "CreateUrlElicitationRequestRequest",
    "#/$defs/CreateElicitationRequest/anyOf/4": "CreateOtherElicitationSessionRequest",
    "#/$defs/CreateElicitationRequest/anyOf/5": "CreateOtherElicitationRequestRequest",
    # Unstable session state: `stopReason` variants of the idle state, and the `state` union
    # with its idle branch distributed by the pre-pass.
    "#/$defs/IdleStateUpdate/anyOf/0": "IdleEndTurnStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/1": "IdleMaxTokensStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/2": "IdleMaxTurnRequestsStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/3": "IdleRefusalStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/4": "IdleCancelledStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/5": "IdleErrorStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/6": "IdleOtherStateUpdate",
    "#/$defs/IdleStateUpdate/anyOf/7": "IdleNoStopReasonStateUpdate",
    "#/$defs/StateUpdate/anyOf/0": "StateUpdateRunning",
    "#/$defs/StateUpdate/anyOf/1": "StateUpdateIdleEndTurn",
    "#/$defs/StateUpdate/anyOf/2": "StateUpdateIdleMaxTokens",
    "#/$defs/StateUpdate/anyOf/3": "StateUpdateIdleMaxTurnRequests",
    "#/$defs/StateUpdate/anyOf/4": "StateUpdateIdleRefusal",
    "#/$defs/StateUpdate/anyOf/5": "StateUpdateIdleCancelled",
    "#/$defs/StateUpdate/anyOf/6": "StateUpdateIdleError",
    "#/$defs/StateUpdate/anyOf/7": "StateUpdateIdleOther",
    "#/$defs/StateUpdate/anyOf/8": "StateUpdateIdleNoStopReason",
    "#/$defs/StateUpdate/anyOf/9": "StateUpdateRequiresAction",
    "#/$defs/StateUpdate/anyOf/10": "StateUpdateUnknown",
}


def plan_renames(
    generated: Iterable[tuple[str, str]],
    def_names: frozenset[str],
    source: str,
    renames: Mapping[str, str] = RENAMES,
) -> dict[str, str]:
    """Old → new class names for the numbered ones among `generated` (class name, pointer).

    Raises `GenerationError` listing every numbered name the table does not cover, and every
    rename whose target is already a name of the module."""
    plan: dict[str, str] = {}
    uncovered: list[str] = []
    taken = {name for name, _ in generated}
    for name, pointer in generated:
        if not NUMBERED.search(name) or name in def_names:
            continue
        new = renames.get(pointer)
        if new is None:
            uncovered.append(f"  - {name} from {source}{pointer}")
        elif new in taken:
            uncovered.append(f"  - {name} from {source}{pointer}: rename target {new!r} is taken")
        else:
            plan[name] = new
    if uncovered:
        lines = "\n".join(sorted(uncovered))
        raise GenerationError(
            "numbered class names not covered by RENAMES in codegen/targets/python_names.py "
            f"(add a name keyed by the JSON pointer):\n{lines}"
        )
    return plan


def apply_renames(source_text: str, plan: Mapping[str, str]) -> str:
    """Rename whole identifiers in generated source (numbered names never occur inside others)."""
    if not plan:
        return source_text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(plan))) + r")\b")
    return pattern.sub(lambda m: plan[m.group(1)], source_text)
