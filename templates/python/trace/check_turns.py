"""The turns of a recording, judged (layer: judgement): what `check` hands over of each session.

- v1 (answered at completion): a turn's updates come before its answer
  (`prompt.updates_before_the_answer`), a load's replay before the load's answer
  (`sessions.load_replays_history`); a `session/cancel` during a turn ends it `cancelled`
  (`prompt.cancel_answers_cancelled`), and `cancelled` only after one
  (`prompt.cancelled_only_after_a_cancel`); the client answers the permission requests pending
  at its cancel with the `cancelled` outcome;
- v2 (answered at insertion): the work reports `running` (or `requires_action`) before `idle`,
  a chunk of the work never comes after its `idle`, a cancel during the work ends it idle
  `cancelled`, a close during the work sends that idle before its answer, and nothing comes for
  the session after the close answer;
- both: every tool call of a turn has a final status when the turn ends.

A cancel races the turn's end: the recording cannot show when the agent read the cancel. What it
shows is what the suite's marker shows (conformance/running.py, `read_before`): an agent reads
its input in order, so one that answered a request sent after the cancel had read the cancel.
A stop reason other than `cancelled` is reported only then; before it, the turn ended as the
cancel was sent and nothing is judged, as the suite skips the case (the same for a close).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..conformance.data import EditionData
from ..conformance.output_schema import id_key
from ..conformance.steps import TURN_KINDS

Report = Callable[[str, int, str], None]
REPLAY_KINDS = TURN_KINDS | {"user_message_chunk"}
FINAL = frozenset({"completed", "failed", "cancelled"})
"""Final tool call statuses (v1 has the first two; v2 adds `cancelled`)."""


@dataclass
class Session:
    prompt: int | None = None
    """v1: the frame of the prompt being answered."""
    cancel: int | None = None
    """The frame of a `session/cancel` sent during the turn or work."""
    loading: bool = False
    replayed: int = 0
    last_answer: str | None = None
    """v1: what was answered last ("prompt" or "load"), while no turn runs."""
    reported_late: bool = False
    ended_turn: int | None = None
    """v1: the frame of the last prompt answer with a stop reason (the session has a history)."""
    tools: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Tool call id → (last status, frame)."""
    permissions: dict[str, int] = field(default_factory=dict)
    """id key of each pending permission request → its frame."""
    cancelled_permissions: set[str] = field(default_factory=set)
    # v2
    inserted: int | None = None
    prompted: int | None = None
    """v2: the frame of the last `session/prompt` sent, while its work has reported no running."""
    working: bool = False
    work_ids: set[str] = field(default_factory=set)
    done_ids: set[str] = field(default_factory=set)
    close: int | None = None
    close_while_working: bool = False
    close_answered_by_idle: bool = False
    """Whether the last idle since the close settles it: it ended the work `cancelled`, or came
    before the agent was seen to read the close (the work ended as the close was sent)."""
    closed_at: int | None = None


class Turns:
    def __init__(self, data: EditionData, report: Report) -> None:
        self.data = data
        self.report = report
        self.v2 = data.prompt is not None and data.prompt.answer == "insertion"
        self.sessions: dict[str, Session] = {}
        self.read_through = -1
        """The latest client frame the agent is known to have read: that of the latest request
        it answered (it reads its input in order)."""

    def read(self, request_frame: int) -> None:
        """The agent answered the client's request sent at `request_frame`."""
        self.read_through = max(self.read_through, request_frame)

    def read_since(self, frame: int) -> bool:
        """Whether the agent had read past `frame`: it answered a request sent after it."""
        return self.read_through > frame

    def session(self, params: Any) -> tuple[str, Session] | None:
        sid = params.get("sessionId") if type(params) is dict else None
        if type(sid) is not str:
            return None
        return sid, self.sessions.setdefault(sid, Session())

    def message(self, index: int, side: str, message: dict[str, Any]) -> None:
        found = self.session(message.get("params"))
        if found is None:
            return
        _, state = found
        method = message["method"]
        params = message["params"]
        if side == "client":
            if method == "session/prompt" and not self.v2:
                state.prompt, state.cancel, state.last_answer = index, None, None
                state.reported_late = False
            elif method == "session/prompt":
                state.prompted = index
            elif method == "session/cancel":
                if state.prompt is not None or state.working:
                    state.cancel = index
                state.cancelled_permissions |= set(state.permissions)
            elif method in ("session/load", "session/resume") and not self.v2:
                state.loading, state.replayed, state.last_answer = True, 0, None
            elif method == "session/close" and self.v2:
                state.close, state.close_while_working = index, state.working
                state.close_answered_by_idle = False
            return
        if state.closed_at is not None:
            self.report(
                "lifecycle.close_sends_nothing_after_its_answer",
                index,
                f"{method} for the session after its close answer (frame {state.closed_at})",
            )
        if method == "session/request_permission" and "id" in message:
            state.permissions[id_key(message["id"])] = index
            tool = params.get("toolCall")
            # the tool call asked about is one of the turn's when the agent reported it, or
            # gives it a status here (a bare title and id only names what is asked)
            if type(tool) is dict and ("status" in tool or tool.get("toolCallId") in state.tools):
                self._tool(index, state, tool)
        if method == "session/update":
            update = params.get("update")
            if type(update) is dict:
                self._update(index, state, update)

    def _update(self, index: int, state: Session, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind in ("tool_call", "tool_call_update"):
            self._tool(index, state, update)
        if self.v2:
            self._v2_update(index, state, kind, update)
            return
        if state.loading:
            state.replayed += 1
        elif state.prompt is None and kind in REPLAY_KINDS and not state.reported_late:
            if state.last_answer == "prompt" and kind in TURN_KINDS:
                state.reported_late = True
                self.report(
                    "prompt.updates_before_the_answer",
                    index,
                    f"a {kind} update of the session after its turn was answered",
                )
            elif state.last_answer == "load":
                state.reported_late = True
                self.report(
                    "sessions.load_replays_history",
                    index,
                    f"a {kind} update of the session's history after its load was answered",
                )

    def _tool(self, index: int, state: Session, update: dict[str, Any]) -> None:
        """A tool call's status, as a `tool_call`, `tool_call_update` or permission request
        last gave it (a field left out keeps its value: "pending" when never given)."""
        tool = update.get("toolCallId")
        if type(tool) is not str:
            return
        status = update.get("status")
        previous = state.tools.get(tool, ("pending", index))[0]
        state.tools[tool] = (status if type(status) is str else previous, index)

    def _v2_update(self, index: int, state: Session, kind: Any, update: dict[str, Any]) -> None:
        life = self.data.prompt.lifecycle if self.data.prompt else None
        if life is None:
            return
        message_id = update.get(life.message_id)
        if kind == life.update_value:
            value = update.get(life.state_tag)
            if value in (life.running, life.requires_action):
                state.working, state.work_ids, state.prompted = True, set(), None
            elif value == life.idle:
                self._idle(index, state, update.get(life.stop_reason))
        elif kind == life.agent_chunk and type(message_id) is str:
            if state.working:
                state.work_ids.add(message_id)
            elif message_id in state.done_ids:
                self.report(
                    "lifecycle.updates_before_idle",
                    index,
                    f"a {kind} of message {message_id!r} after the idle that ended its work",
                )

    def _idle(self, index: int, state: Session, reason: Any) -> None:
        if not state.working:
            if state.inserted is not None:
                self.report(
                    "lifecycle.turn_reports_running_then_idle",
                    index,
                    f"idle for the prompt inserted at frame {state.inserted}, with no running "
                    "or requires_action before it",
                )
                state.inserted = None
            return
        if state.cancel is not None and reason != "cancelled" and self.read_since(state.cancel):
            self.report(
                "lifecycle.cancel_ends_the_work_idle_cancelled",
                index,
                f"the work ended with stopReason {reason!r} after the session/cancel at frame "
                f"{state.cancel}",
            )
        if state.close is not None:
            read = self.read_since(state.close)
            state.close_answered_by_idle = reason == "cancelled" or not read
        self._tools_end(index, state)
        state.working, state.done_ids, state.work_ids = False, state.work_ids, set()
        state.cancel, state.inserted = None, None

    def _tools_end(self, index: int, state: Session) -> None:
        for tool, (status, at) in state.tools.items():
            if status not in FINAL and status != "paused":
                self.report(
                    "tool_calls.end_with_a_final_status",
                    index,
                    f"tool call {tool!r} ended the turn {status} (its last update: frame {at})",
                )
        state.tools.clear()

    def answer(
        self, index: int, side: str, method: str, params: Any, message: dict[str, Any]
    ) -> None:
        found = self.session(params)
        if found is None:
            return
        _, state = found
        if side == "client":
            if method == "session/request_permission":
                self._permission_answer(index, state, message)
            return
        result = message.get("result")
        if method == "session/prompt":
            if self.v2:
                # a work that reported running since the prompt was sent is its work (it may
                # have ended already: running and idle written before the answer)
                if type(result) is dict and state.prompted is not None:
                    state.inserted = index
                state.prompted = None
            else:
                self._v1_end(index, state, result)
        elif method in ("session/load", "session/resume") and not self.v2:
            state.loading = False
            state.last_answer = "load" if method == "session/load" else None
            state.reported_late = False
            if method == "session/load" and type(result) is dict and state.replayed == 0:
                state.reported_late = True
                self.report(
                    "sessions.load_replays_history",
                    index,
                    "session/load answered with no update of the session's history before it",
                )
            elif method == "session/load" and "error" in message and state.ended_turn is not None:
                # the suite's case loads a session whose turn ended and fails an error answer:
                # "Stream the entire conversation history back" (a session the recording saw no
                # turn of may have none: not judged)
                state.reported_late = True
                self.report(
                    "sessions.load_replays_history",
                    index,
                    f"session/load of a session whose turn ended (frame {state.ended_turn}) was"
                    " answered with an error, not its history",
                )
        elif method == "session/close" and self.v2 and "result" in message:
            if state.close_while_working and not state.close_answered_by_idle:
                self.report(
                    "lifecycle.close_reports_idle_cancelled_before_its_answer",
                    index,
                    f"session/close (frame {state.close}) was sent while the work ran and "
                    "answered before an idle with stopReason cancelled",
                )
            state.closed_at = index

    def _v1_end(self, index: int, state: Session, result: Any) -> None:
        reason = result.get("stopReason") if type(result) is dict else None
        if type(reason) is str:
            state.ended_turn = index
        read = state.cancel is not None and self.read_since(state.cancel)
        if read and type(reason) is str and reason != "cancelled":
            self.report(
                "prompt.cancel_answers_cancelled",
                index,
                f"the turn ended with stopReason {reason!r} after the session/cancel at frame "
                f"{state.cancel}",
            )
        if reason == "cancelled" and state.cancel is None:
            self.report(
                "prompt.cancelled_only_after_a_cancel",
                index,
                f"the turn (prompt at frame {state.prompt}) ended cancelled, with no "
                "session/cancel sent for the session",
            )
        if type(reason) is str:
            self._tools_end(index, state)
        state.prompt, state.cancel, state.last_answer = None, None, "prompt"

    def _permission_answer(self, index: int, state: Session, message: dict[str, Any]) -> None:
        key = id_key(message.get("id"))
        state.permissions.pop(key, None)
        if key not in state.cancelled_permissions:
            return
        state.cancelled_permissions.discard(key)
        result = message.get("result")
        outcome = result.get("outcome") if type(result) is dict else None
        chosen = outcome.get("outcome") if type(outcome) is dict else None
        if chosen != "cancelled":
            self.report(
                "client.output.cancel_answers_pending_permissions_cancelled",
                index,
                f"a permission request pending at the session/cancel was answered {chosen!r}",
            )

    def end(self, count: int) -> None:
        """The recording's end: nothing more is judged. Work or a turn still running is no
        verdict, even when the agent then exited on its own: the client may have closed its
        end mid-work (the official TypeScript SDK's agent cannot send its `idle` then), and the
        suite's verdict on work never idle rests on a deadline no recording shows."""
