# Copied by acp-codegen from templates/python/trace/view_summary.py. Do not edit here:
# edit the source, then run `make generate`.

"""What a recording holds, summarised for `trace view` (layer: analysis): `Summariser` feeds the
frames into a `view_model.Summary`.

One pass over the frames (`view_read`), streamed: memory grows with the sessions, turns, tool
calls and requests (a request keeps only what the summary shows once answered), never with the
frames. Requests are paired with their answers by direction and exact id (an agent's request
`id: 0` and the client's are two requests). The state a client keeps (messages, tool calls,
plans) comes from the runtime's client-state reducer fed with the negotiated edition's table
(`<edition>/state.py`, from the schema's `x-state`): the page shows what a client following the
table would have shown.

The summary's own problems (`Problem`) are those a reader needs no rule data for: a request never
answered, an error answer, an answer to no request, a v1 turn's update after its answer, a v2
turn never idle, a malformed state update; `trace check`'s violations replace them where it
exists (`view.problems`).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from typing import Any

from ..runtime import ClientState, StateTable
from .view_model import (
    Cancel,
    Permission,
    Problem,
    Request,
    Session,
    Summary,
    ToolCall,
    Turn,
    blocks_text,
    plan_entries,
)
from .view_read import Frame

PROMPT, CANCEL, UPDATE = "session/prompt", "session/cancel", "session/update"
PERMISSION = "session/request_permission"
MESSAGES = ("userMessage", "agentMessage", "agentThought")
TURN_UPDATES = frozenset(
    ("agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan")
)
"""v1 updates that belong to a prompt turn: "The answer to session/prompt ends the turn" (the
conformance suite's `prompt.updates_before_the_answer`; the schema's stop reason "Indicates why
the agent stopped processing the turn"), so one of these after the answer (and before the next
prompt) came late."""


def state_table(edition: int) -> StateTable:
    module = importlib.import_module(f"..v{edition}.state", __package__)
    table: StateTable = module.STATE_TABLE
    return table


class Summariser:
    """Feeds frames in order into a `Summary`."""

    def __init__(self) -> None:
        self.summary = Summary()
        self.open: dict[tuple[str, str], Request] = {}
        self.prompts: dict[int, Turn] = {}
        """The turns whose `session/prompt` is not answered yet, by the request's frame."""

    def feed_all(self, frames: Iterable[Frame]) -> Summary:
        for frame in frames:
            self.feed(frame)
        return self.finish()

    def state(self) -> ClientState:
        summary = self.summary
        if summary.state is None:
            summary.state = ClientState(
                state_table(summary.edition if summary.edition in (1, 2) else 1)
            )
        return summary.state

    def feed(self, frame: Frame) -> None:
        summary = self.summary
        summary.frames += 1
        summary.until = max(summary.until, frame.t)
        if frame.dir == "sent":
            summary.sent += 1
        else:
            summary.received += 1
        if frame.raw is None and type(frame.value) is list:  # a batch: each of its messages
            for item in frame.value:
                if type(item) is dict:
                    self.message(frame, item)
            return
        if frame.message is None:
            summary.raw += 1
            return
        self.message(frame, frame.message)

    def message(self, frame: Frame, message: dict[str, Any]) -> None:
        method = message.get("method")
        if type(method) is str:
            self.call(frame, message, method)
        elif "id" in message:
            self.answer(frame, message)

    def call(self, frame: Frame, message: dict[str, Any], method: str) -> None:
        params = message.get("params")
        session_id = params.get("sessionId") if type(params) is dict else None
        session = self.session(session_id, method, frame.index) if type(session_id) is str else None
        if "id" in message:
            request = Request(frame.index, frame.t, frame.dir, method, message["id"], params)
            self.summary.requests.append(request)
            self.open[frame.dir, json.dumps(message["id"])] = request
            if method == "initialize" and type(params) is dict:
                self.edition(params.get("protocolVersion"))
            if method == PROMPT and session is not None and frame.dir == "sent":
                self.prompt(session, request)
            if method == PERMISSION:
                self.permission(session, request)
        elif method == CANCEL and session is not None:
            cancel = Cancel(frame.index, frame.t, session.id, session.current)
            self.summary.cancels.append(cancel)
            if session.current is not None:
                session.current.cancels.append(cancel)
        if method == UPDATE and session is not None and type(params) is dict:
            self.update(frame, session, params)
        self.apply(frame, {"method": method, "params": params}, session)

    def answer(self, frame: Frame, message: dict[str, Any]) -> None:
        other = "received" if frame.dir == "sent" else "sent"
        request = self.open.pop((other, json.dumps(message["id"])), None)
        if request is None:
            self.problem("answer to no request", f"an answer to id {message['id']!r}", frame)
            return
        request.answer, request.answered = frame.index, frame.t
        error = message.get("error")
        if "result" not in message:
            request.error = error if type(error) is dict else {"code": None, "message": repr(error)}
            code, text = request.error.get("code"), request.error.get("message", "")
            self.problem("error answer", f"{request.method} answered error {code} {text}", frame)
        elif request.method in (PROMPT, PERMISSION):  # the rest is not kept: memory stays small
            request.result = message["result"]
        result = message.get("result")
        found = result.get("sessionId") if type(result) is dict else None
        if type(found) is str:
            self.session(found, request.method, request.index)
        if request.method == "initialize" and type(result) is dict:
            self.edition(result.get("protocolVersion"))
        if request.method == PROMPT:
            self.prompt_answer(frame, request)
        if "result" in message:
            params = request.params
            session_id = params.get("sessionId") if type(params) is dict else found
            session = self.summary.sessions.get(session_id) if type(session_id) is str else None
            state = {"method": request.method, "params": request.params, "result": result}
            self.apply(frame, state, session)
        request.params = None  # what the summary needs of them was read when it was sent

    def edition(self, version: Any) -> None:
        if type(version) is int and self.summary.state is None:
            self.summary.edition = version

    def session(self, session_id: str, how: str, index: int) -> Session:
        found = self.summary.sessions.get(session_id)
        if found is None:
            found = self.summary.sessions[session_id] = Session(session_id, how, index)
        return found

    def prompt(self, session: Session, request: Request) -> None:
        params = request.params if type(request.params) is dict else {}
        turn = Turn(len(session.turns) + 1, session.id, request, blocks_text(params.get("prompt")))
        session.turns.append(turn)
        session.current, session.answered = turn, None
        self.prompts[request.index] = turn

    def prompt_answer(self, frame: Frame, request: Request) -> None:
        turn = self.prompts.pop(request.index, None)
        session = self.summary.sessions.get(turn.session) if turn is not None else None
        if turn is None or session is None:
            return
        result = request.result if type(request.result) is dict else {}
        if request.error is not None or "stopReason" in result:
            stop = result.get("stopReason") if request.error is None else "error"
            self.end(session, turn, frame, str(stop))
            session.answered = turn if request.error is None else None

    def end(self, session: Session, turn: Turn, frame: Frame, stop: str) -> None:
        if turn.ended is None:
            turn.stop, turn.end, turn.ended = stop, frame.index, frame.t
        if session.current is turn:
            session.current = None

    def update(self, frame: Frame, session: Session, params: dict[str, Any]) -> None:
        update = params.get("update")
        variant = update.get("sessionUpdate") if type(update) is dict else None
        turn = session.current
        if turn is not None:
            turn.updates += 1
        if variant == "state_update" and type(update) is dict and update.get("state") == "idle":
            if turn is not None:
                self.end(session, turn, frame, str(update.get("stopReason", "idle")))
        elif session.answered is not None and variant in TURN_UPDATES and self.summary.edition == 1:
            number = session.answered.number
            self.problem(
                "update after the answer",
                f"{variant} of session {session.id} after turn {number}'s answer "
                f"(#{session.answered.end})",
                frame,
            )

    def permission(self, session: Session | None, request: Request) -> None:
        params = request.params if type(request.params) is dict else {}
        subject = params.get("subject")
        tool = params.get("toolCall") or (
            subject.get("toolCall") if type(subject) is dict else None
        )
        title = params.get("title") or (tool.get("title") if type(tool) is dict else None) or ""
        options = [o for o in params.get("options") or [] if type(o) is dict]
        permission = Permission(request, str(title), options)
        self.summary.permissions.append(permission)
        if session is not None and session.current is not None:
            session.current.permissions.append(permission)

    def apply(self, frame: Frame, message: dict[str, Any], session: Session | None) -> None:
        if message["method"] == "initialize":  # no state of its own; the edition is not known yet
            return
        state = self.state()
        applied = state.apply(message)
        if applied.logged:  # kept unapplied: the page needs none of it, memory stays bounded
            holder = state.sessions.get(applied.session or "") or state.agent
            holder.log.clear()
        if applied.problem is not None:
            problem = applied.problem
            self.problem(
                "malformed update",
                f"{problem['kind']}: {problem['pointer']} is {problem['reason']}",
                frame,
            )
        if session is None or not applied.changes:
            return
        turn = session.current
        for change in applied.changes:
            key = (change.target, str(change.id))
            if change.target in MESSAGES:
                kept = turn.messages if turn is not None else session.outside
                if key not in kept and (turn is None or change.target != "userMessage"):
                    kept[key] = frame.index
            elif change.target == "toolCall" and change.id is not None:
                self.tool(frame, session, state, str(change.id))
            elif change.target == "plan" and turn is not None:
                plans = state.session(session.id).get("plan")
                plan = plans.get(change.id) if change.id is not None and plans else plans
                turn.plans.append((frame.index, frame.t, plan_entries(plan)))

    def tool(self, frame: Frame, session: Session, state: ClientState, key: str) -> None:
        entries = state.session(session.id).get("toolCall")
        entry = entries.get(key) if isinstance(entries, dict) else None
        entry = entry if isinstance(entry, dict) else {}
        tool = self.summary.tools.get((session.id, key))
        if tool is None:
            tool = self.summary.tools[session.id, key] = ToolCall(key, session.id, frame.index)
            session.tools.append(tool)
            if session.current is not None:
                session.current.tools.append(tool)
        status, title = str(entry.get("status") or "pending"), str(entry.get("title") or "")
        if not tool.history or tool.history[-1][2:] != (status, title):
            tool.history.append((frame.index, frame.t, status, title))
        tool.status, tool.title, tool.kind = status, title, str(entry.get("kind") or "")

    def problem(self, kind: str, text: str, frame: Frame | None) -> None:
        self.summary.problems.append(Problem(kind, text, None if frame is None else frame.index))

    def finish(self) -> Summary:
        summary = self.summary
        for request in sorted(self.open.values(), key=lambda r: r.index):
            summary.problems.append(
                Problem(
                    "never answered",
                    f"{request.method} (id {request.id!r}, {request.dir}) never answered",
                    request.index,
                )
            )
        for session in summary.sessions.values():
            for turn in session.turns:
                if turn.ended is None and turn.request.answer is not None:
                    summary.problems.append(
                        Problem(
                            "turn never ended", f"turn {turn.number} never idle", turn.request.index
                        )
                    )
        summary.problems.sort(key=lambda p: -1 if p.frame is None else p.frame)
        return summary
