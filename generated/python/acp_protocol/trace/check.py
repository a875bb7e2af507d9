# Copied by acp-codegen from templates/python/trace/check.py. Do not edit here:
# edit the source, then run `make generate`.

"""`trace check`: a recorded conversation judged by every rule a recording can show (layer:
judgement), for both sides, each violation with the conformance suite's case id, level and quote
(`check_rules`).

What is judged here, frame by frame:

- the envelope: every request answered once, with its exact id; a notification never answered;
  an answer never carrying both `result` and `error`; every line the agent writes a JSON-RPC
  message; the edition's notifications sent without an id;
- every message against the negotiated edition's schema (the version `initialize` was answered
  with), through the generated models: the first problem's JSON pointer;
- methods the other side did not advertise: an agent's `fs/*`, `terminal/*` or gated update to
  a client whose `initialize` did not offer it; a client's `session/load` (…) to an agent whose
  `initialize` answer did not;
- a permission answered with an option the request did not offer;

and, through `check_turns`, the order of a turn (v1: updates before the answer; v2: `running` …
`idle`, nothing after a close answer), cancels honoured and tool calls finished.

`check_recording(frames, exit_status, input_closed)` is the API (`trace view` shows its
violations): each `Violation` names the frame (an index into `frames`) it was seen at.
`Checker` judges as it reads (`feed` each frame, then `finish`): it keeps no frame past the
`initialize` answer, only what the rules need (each request's method, session and, for a
permission, its options).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..conformance.output_gates import Gate, gates
from ..conformance.output_schema import id_key
from .check_messages import (
    Judge,
    Violation,
    answer,
    batch_answered,
    batches_unanswered,
    not_a_message,
    request_or_notification,
    show,
)
from .check_rules import Side, rules_for
from .check_turns import Turns
from .frames import RecordedFrame

__all__ = ["Checker", "Violation", "check_recording", "negotiated_edition"]


NEGOTIATION_WINDOW = 256
"""Frames held, at most, until `initialize` is answered and the edition is known."""


class Checker:
    """A recording judged frame by frame (`feed`), then at its end (`finish`): it holds the
    frames only until `initialize` is answered (at most `NEGOTIATION_WINDOW`)."""

    def __init__(self, edition: str | None = None) -> None:
        self.edition = edition
        """The edition to judge by when the frames show no `initialize` answer (a case trace
        of an envelope case run after others on the same agent names its `protocol`)."""
        self.held: list[RecordedFrame] = []
        self.judge: Judge | None = None
        self.turns: Turns | None = None
        self.update_gates: list[Gate] = []
        self.count = 0

    def feed(self, frame: RecordedFrame) -> None:
        if self.judge is None:
            self.held.append(frame)
            key = _settled(self.held)
            if key is None and len(self.held) < NEGOTIATION_WINDOW:
                return
            self._start(key or self._unsettled())
            return
        self._frame(frame)

    def finish(
        self, exit_status: int | None = None, input_closed: int | None = None
    ) -> list[Violation]:
        """Every violation, in the order of the frames they were seen at. `exit_status`: the
        agent's, when the recording saw it end (a negative one: ended by that signal);
        `input_closed`: how many frames there were when the editor closed the agent's input,
        where the recording shows it did so while the agent's output was still open (None
        otherwise). The suite's case `eof.every_request_read_is_answered` ("every request read
        before the end of input is answered"): a request read before that end and never
        answered, by an agent that then exited on its own (no verdict when it died with its
        input open, was ended by a signal, or the recording stops first; nor for the requests
        behind a batch where it stopped, `_stopped_at`)."""
        if self.judge is None:
            self._start(_settled(self.held) or self._unsettled())
        judge, turns = self.judge, self.turns
        assert judge is not None and turns is not None
        read_before = min(input_closed, _stopped_at(judge) or input_closed) if input_closed else 0
        batches_unanswered(judge)
        ended_alone = exit_status is not None and exit_status >= 0
        for request in judge.asked["client"].values():
            if request.answers == 0 and ended_alone and request.frame < read_before:
                judge.report(
                    "eof.every_request_read_is_answered",
                    request.frame,
                    f"{request.method} was never answered (its input closed at frame "
                    f"{input_closed}, the agent exited {exit_status})",
                )
        turns.end(self.count)
        judge.found.sort(key=lambda v: v.frame)
        return judge.found

    def _unsettled(self) -> str:
        """The edition when no `initialize` answer settled it: the one given, else the one
        asked (v1 when none)."""
        return self.edition or negotiated_asked(self.held)

    def _start(self, key: str) -> None:
        self.judge = Judge(rules_for(key))
        self.turns = Turns(self.judge.rules.data, self.judge.report)
        self.update_gates = gates(self.judge.rules.data, self.judge.rules.edition.models)
        held, self.held = self.held, []
        for frame in held:
            self._frame(frame)

    def _frame(self, frame: RecordedFrame) -> None:
        judge, turns = self.judge, self.turns
        assert judge is not None and turns is not None
        index = self.count
        self.count += 1
        side: Side = "client" if frame.dir == "sent" else "agent"
        message = frame.message
        if side == "agent" and _is_list(frame):
            batch_answered(judge)  # an array of answers
        if message is None:
            not_a_message(judge, index, frame, side)
        elif type(message.get("method")) is str:
            request_or_notification(judge, index, message, side, self.update_gates)
            turns.message(index, side, message)
        elif "result" in message or "error" in message:
            request = answer(judge, index, message, side)
            if request is not None:
                if side == "agent":
                    turns.read(request.frame)
                turns.answer(index, side, request.method, request.params, message)
        elif side == "agent":
            judge.report(
                "output.stdout_lines_are_json_rpc_messages",
                index,
                f"a JSON object that is no JSON-RPC message: {show(message)}",
            )
        judge.last[frame.dir] = (index, message)


def check_recording(
    frames: Iterable[RecordedFrame],
    exit_status: int | None = None,
    input_closed: int | None = None,
) -> list[Violation]:
    """Every violation the recording shows, in the order of the frames they were seen at (each
    `Violation.frame` an index into `frames`). `exit_status` and `input_closed` as
    `Checker.finish` takes them: a request the agent never answered is judged only when the
    editor closed its input while it was there and it then exited on its own."""
    checker = Checker()
    for frame in frames:
        checker.feed(frame)
    return checker.finish(exit_status, input_closed)


def _stopped_at(judge: Judge) -> int | None:
    """The frame of the oldest batch the agent never answered, when it wrote nothing after it:
    where it stopped reading (the official Python SDK's example fails on a batch and goes
    silent). The requests behind it are that batch's silence, which its case reports (the
    suite's probe behind its batch, unanswered), not requests read before the end of input."""
    if not judge.batches:
        return None
    index = judge.batches[0][0]
    last = judge.last.get("received")
    return index if last is None or last[0] < index else None


def _is_list(frame: RecordedFrame) -> bool:
    return frame.raw is None and type(frame.value) is list


def negotiated_edition(frames: Sequence[RecordedFrame]) -> str:
    """The edition `initialize` settled on: the version the agent answered, else the one the
    client asked; v1 when the recording shows neither."""
    return _settled(frames) or negotiated_asked(frames)


def _settled(frames: Sequence[RecordedFrame]) -> str | None:
    """The edition of the version `initialize` was answered with, once the answer is among
    `frames` (None before; "v1" for an answer with no version this package has)."""
    request_id: str | None = None
    for frame in frames:
        message = frame.message
        if message is None:
            continue
        if frame.dir == "sent" and message.get("method") == "initialize" and request_id is None:
            request_id = id_key(message.get("id"))
        elif (
            frame.dir == "received"
            and request_id is not None
            and "method" not in message
            and id_key(message.get("id")) == request_id
        ):
            result = message.get("result")
            answered = result.get("protocolVersion") if type(result) is dict else None
            return f"v{answered}" if answered in (1, 2) else negotiated_asked(frames)
    return None


def negotiated_asked(frames: Sequence[RecordedFrame]) -> str:
    """The edition of the version the client's `initialize` asked (v1 when none)."""
    for frame in frames:
        message = frame.message
        if frame.dir == "sent" and message is not None and message.get("method") == "initialize":
            params = message.get("params")
            asked = params.get("protocolVersion") if type(params) is dict else None
            return f"v{asked}" if asked in (1, 2) else "v1"
    return "v1"
