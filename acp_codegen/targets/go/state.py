"""Go target: where an edition's generated code feeds the client state (layer: target view over
`acp_codegen.targets.state_table`).

"The state a client keeps" (issue 38): the client's handler decodes the messages it receives that
the state table covers (a `params` entry: `session/update`, `session/request_permission`) through
`acp.Feeding`, and the client's handle of the agent (`AgentPeer`) sends the requests whose
sending or answer changes state (the table's `turn`, a `result` entry: `session/new`) through
`acp.CallFeeding`; that handle exposes the state (`ClientState`, `SessionState(id)`,
`OnStateChange`, `StateSnapshot`).
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen.targets.go.tables import RoleView
from acp_codegen.targets.state_table import PARAMS, RESULT, StateTable

CLIENT = "client"
"""The role that keeps the state (`x-state`: "what each update does to client state")."""


@dataclass(frozen=True, slots=True)
class StateFeeding:
    received: frozenset[str]
    """The methods whose params the table covers: decoded through `acp.Feeding` by the client."""
    sent: frozenset[str]
    """The requests the client sends that the table covers (its turn, a result entry)."""

    def handler_feeds(self, role: RoleView, method: str) -> bool:
        """Whether `role`'s handler decodes `method` through `acp.Feeding`."""
        return role.role.name == CLIENT and method in self.received

    def peer_keeps(self, role: RoleView) -> bool:
        """Whether `role`'s peer handle is the client's (it exposes and feeds the state)."""
        return role.role.peer == CLIENT

    def peer_feeds(self, role: RoleView, method: str) -> bool:
        """Whether `role`'s peer handle sends `method` through `acp.CallFeeding`."""
        return self.peer_keeps(role) and method in self.sent


def state_feeding(table: StateTable) -> StateFeeding:
    received = frozenset(e.method for e in table.entries if e.part == PARAMS)
    sent = {e.method for e in table.entries if e.part == RESULT}
    if table.turn is not None:
        sent.add(table.turn)
    return StateFeeding(received, frozenset(sent))
