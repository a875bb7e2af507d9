# Copied by acp-codegen from templates/python/runtime/session_turns.py. Do not edit here:
# edit the source, then run `make generate`.

"""ACP's feature-level cancellation: `session/cancel` ends a session's turns with a result.

Layer: typed layer.

Besides the protocol-level `$/cancel_request` (answered `-32800`, see `connection`), ACP cancels a
prompt turn with the `session/cancel` notification, and the requests that make up the turn are then
answered with a *result* that says "cancelled", never an error:

- Agent, prompt-turn.mdx § Cancellation: the Agent "MUST respond to the original `session/prompt`
  request with the `cancelled` stop reason", and "Agents MUST catch these errors and return the
  semantically meaningful `cancelled` stop reason".
- Client, same section: the Client "MUST respond to all pending `session/request_permission`
  requests with the `cancelled` outcome" after it sends `session/cancel`.

The rules are entries of the behaviour table (`Behaviour.turn_rules`, from the typed IR's rule
table, kept for an edition only where its own types accept the rule's result); each generated role
module names its side's as `TURN_RULE`. The behaviour engine (`behaviour_engine`) tracks the in-
flight requests of a rule's method by session here; the cancel notification (received, or sent by
this side) cancels their handlers through the connection, which cancels their nested requests
first, and a handler that lets the `CancelledError` propagate is answered with the rule's result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .behaviour import TurnRule
from .frames import RequestId
from .request_state import CancelSource

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["SessionTurns", "TurnRule", "session_id_of"]


def session_id_of(params: Any) -> str | None:
    """The `sessionId` of raw params, or None."""
    if isinstance(params, dict):
        session_id = params.get("sessionId")
        if isinstance(session_id, str):
            return session_id
    return None


@dataclass(slots=True, eq=False)
class SessionTurns:
    """The in-flight turns of one rule, by session: request id → cancelled by the rule."""

    rule: TurnRule
    active: dict[str, dict[RequestId, bool]] = field(default_factory=dict)

    async def run(
        self, session_id: str, request_id: RequestId, handler: Callable[[], Awaitable[Any]]
    ) -> Any:
        """Run one turn's handler; a turn cancelled by the rule answers the rule's result."""
        turns = self.active.setdefault(session_id, {})
        turns[request_id] = False
        try:
            return await handler()
        except asyncio.CancelledError:
            if turns.get(request_id):
                return dict(self.rule.result)
            raise
        finally:
            turns.pop(request_id, None)
            if not turns and self.active.get(session_id) is turns:
                del self.active[session_id]

    def cancel(self, connection: Connection, session_id: Any) -> int:
        """Cancel every turn of `session_id` still running; returns how many were cancelled."""
        turns = self.active.get(session_id) if isinstance(session_id, str) else None
        if not turns:
            return 0
        cancelled = 0
        for request_id, already in list(turns.items()):
            if not already and connection.cancel_incoming(request_id, CancelSource.SESSION):
                turns[request_id] = True
                cancelled += 1
        return cancelled
