"""`trace check`: a recording judged by the rules it can show. Each broken fixture below is a
correct conversation with one fault put in, and reports exactly that fault's case id, with the
level and quote the conformance suite gives the case; the correct conversations report nothing.
"""

from __future__ import annotations

import copy
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.conformance.client_runner import all_client_cases
from acp_protocol.conformance.runner import all_cases, load_edition
from acp_protocol.trace.__main__ import main
from acp_protocol.trace.check import check_recording
from acp_protocol.trace.frames import RecordedFrame

SID = "s-1"
Frame = tuple[str, Any]
"""("sent" | "received", the message): what a fixture is written as."""


def request(id_: Any, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def notification(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def result(id_: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": value}


def update(session_update: str, **fields: Any) -> dict[str, Any]:
    body = {"sessionUpdate": session_update, **fields}
    return notification("session/update", {"sessionId": SID, "update": body})


def chunk(text: str, **fields: Any) -> dict[str, Any]:
    return update("agent_message_chunk", content={"type": "text", "text": text}, **fields)


def v1_opening(fs: bool = True, load: bool = False) -> list[Frame]:
    caps = {"fs": {"readTextFile": True, "writeTextFile": True}} if fs else {}
    return [
        ("sent", request(1, "initialize", {"protocolVersion": 1, "clientCapabilities": caps})),
        ("received", result(1, {"protocolVersion": 1, "agentCapabilities": {"loadSession": load}})),
        ("sent", request(2, "session/new", {"cwd": "/tmp", "mcpServers": []})),
        ("received", result(2, {"sessionId": SID})),
    ]


def v1_turn(stop: str = "end_turn", *middle: Frame) -> list[Frame]:
    prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]}
    return [
        ("sent", request(3, "session/prompt", prompt)),
        ("received", chunk("hello")),
        *middle,
        ("received", result(3, {"stopReason": stop})),
    ]


OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
TOOL = {"toolCallId": "t-1", "title": "write out.txt", "kind": "edit", "status": "pending"}


def permission(answer: Any) -> list[Frame]:
    """A tool call asked about, answered `answer`, then completed."""
    asked = {"sessionId": SID, "toolCall": TOOL, "options": OPTIONS}
    return [
        ("received", update("tool_call", **TOOL)),
        ("received", request(0, "session/request_permission", asked)),
        ("sent", result(0, {"outcome": answer})),
        ("received", update("tool_call_update", toolCallId="t-1", status="completed")),
    ]


def v1_clean() -> list[Frame]:
    allowed = permission({"outcome": "selected", "optionId": "allow"})
    return v1_opening() + v1_turn("end_turn", *allowed)


INFO = {"name": "fixture", "version": "1.0"}


def v2_opening() -> list[Frame]:
    return [
        (
            "sent",
            request(1, "initialize", {"protocolVersion": 2, "info": INFO, "capabilities": {}}),
        ),
        (
            "received",
            result(
                1,
                {
                    "protocolVersion": 2,
                    "info": INFO,
                    "capabilities": {"session": {}},
                    "authMethods": [],
                },
            ),
        ),
        ("sent", request(2, "session/new", {"cwd": "/tmp", "mcpServers": []})),
        ("received", result(2, {"sessionId": SID})),
    ]


def state(value: str, **fields: Any) -> dict[str, Any]:
    return update("state_update", state=value, **fields)


def v2_work(*middle: Frame, end: str = "end_turn", running: bool = True) -> list[Frame]:
    prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]}
    user = {"type": "text", "text": "hi"}
    return [
        ("sent", request(3, "session/prompt", prompt)),
        ("received", result(3, {"messageId": "m-1"})),
        ("received", update("user_message", messageId="m-1", content=user)),
        *([("received", state("running"))] if running else []),
        ("received", chunk("hello", messageId="r-1")),
        *middle,
        ("received", state("idle", stopReason=end)),
    ]


def recording(frames: list[Frame]) -> list[RecordedFrame]:
    return [
        RecordedFrame(n / 10, "sent" if d == "sent" else "received", copy.deepcopy(m))
        for n, (d, m) in enumerate(frames)
    ]


def ids(frames: list[Frame], exit_status: int | None = 0) -> list[str]:
    return [v.case for v in check_recording(recording(frames), exit_status)]


def test_correct_v1_and_v2_conversations_report_nothing() -> None:
    assert ids(v1_clean()) == []
    assert ids(v2_opening() + v2_work()) == []


def test_an_agent_answering_a_notification_breaks_never_answered() -> None:
    frames = [
        *v1_clean(),
        ("sent", notification("session/cancel", {"sessionId": SID})),
        ("received", {"jsonrpc": "2.0", "id": None, "result": {}}),
    ]
    assert ids(frames) == ["notifications.never_answered.session/cancel"]


def test_an_update_after_the_v1_answer_breaks_updates_before_the_answer() -> None:
    frames = [*v1_clean(), ("received", chunk("late"))]
    assert ids(frames) == ["prompt.updates_before_the_answer"]


def test_a_request_answered_twice_is_reported_once_per_extra_answer() -> None:
    frames = [*v1_clean(), ("received", result(2, {"sessionId": SID}))]
    assert ids(frames) == ["output.one_answer_per_request"]


def test_an_answer_with_an_id_no_request_had_breaks_the_exact_id_rule() -> None:
    frames = [*v1_opening(), ("received", result("2", {"sessionId": SID}))]
    assert ids(frames, None) == ["output.answer_ids_are_request_ids"]


def test_a_tool_call_never_finished_is_reported_when_the_turn_ends() -> None:
    frames = v1_opening() + v1_turn("end_turn", ("received", update("tool_call", **TOOL)))
    assert ids(frames) == ["tool_calls.end_with_a_final_status"]


def test_an_fs_request_to_a_client_without_fs_breaks_the_unadvertised_rule() -> None:
    read = request(0, "fs/read_text_file", {"sessionId": SID, "path": "/tmp/a"})
    frames = v1_opening(fs=False) + v1_turn(
        "end_turn", ("received", read), ("sent", result(0, {"content": "x"}))
    )
    assert ids(frames) == ["output.unadvertised.fs/read_text_file"]


def test_a_permission_outcome_not_offered_breaks_the_client_answer_rule() -> None:
    chosen = permission({"outcome": "selected", "optionId": "always"})
    violations = check_recording(recording(v1_opening() + v1_turn("end_turn", *chosen)), 0)
    assert [(v.case, v.side, v.level) for v in violations] == [
        ("client.answers.session/request_permission", "client", "MUST")
    ]


CANCEL: Frame = ("sent", notification("session/cancel", {"sessionId": SID}))


def read_after(*sent: Frame) -> list[Frame]:
    """`sent`, then a request the agent answers (the suite's marker, `_conformance/probe`): an
    agent reads its input in order, so its answer shows `sent` was read."""
    return [
        *sent,
        ("sent", {"jsonrpc": "2.0", "id": "marker-9", "method": "_conformance/probe"}),
        ("received", {"jsonrpc": "2.0", "id": "marker-9", "result": None}),
    ]


def test_a_cancel_ignored_breaks_cancel_answers_cancelled() -> None:
    """The suite's case fails only an end other than `cancelled` written after the request sent
    right after the cancel was answered: the recording holds the check to the same."""
    frames = v1_opening() + v1_turn("end_turn", *read_after(CANCEL))
    assert ids(frames) == ["prompt.cancel_answers_cancelled"]


def test_a_turn_that_ends_as_the_cancel_is_sent_is_no_verdict() -> None:
    """A turn that ended `end_turn` before the agent was seen to read the cancel raced it: the
    suite skips that ("not known to have been read first"), and so does the check."""
    assert ids(v1_opening() + v1_turn("end_turn", CANCEL)) == []
    late = v1_opening() + v1_turn("end_turn", CANCEL) + read_after()
    assert ids(late) == []


def test_cancelled_without_a_cancel_is_reported_informative() -> None:
    found = check_recording(recording(v1_opening() + v1_turn("cancelled")), 0)
    assert [(v.case, v.level) for v in found] == [
        ("prompt.cancelled_only_after_a_cancel", "informative")
    ]


def test_a_permission_pending_at_the_cancel_must_be_answered_cancelled() -> None:
    cancel = ("sent", notification("session/cancel", {"sessionId": SID}))
    asked = {"sessionId": SID, "toolCall": {**TOOL, "status": "failed"}, "options": OPTIONS}
    frames = v1_opening() + v1_turn(
        "cancelled",
        ("received", request(0, "session/request_permission", asked)),
        cancel,
        ("sent", result(0, {"outcome": {"outcome": "selected", "optionId": "allow"}})),
    )
    assert ids(frames) == ["client.output.cancel_answers_pending_permissions_cancelled"]


def test_session_load_to_an_agent_without_load_session_is_reported() -> None:
    load = {"sessionId": SID, "cwd": "/tmp", "mcpServers": []}
    frames = [
        *v1_opening(load=False),
        ("sent", request(3, "session/load", load)),
        ("received", chunk("replayed")),
        ("received", result(3, {})),
    ]
    assert ids(frames) == ["client.output.unadvertised.session/load"]
    advertised = v1_opening(load=True) + frames[4:]
    assert ids(advertised) == []


def test_a_load_of_a_session_with_a_finished_turn_answered_with_an_error_replays_nothing() -> None:
    """As the suite's case: the load of a session whose turn ended, in the same conversation,
    answered with an error instead of its history (gemini-cli 0.61.0: -32603, "Invalid session
    identifier"). A load of a session the recording never saw a turn of is not judged."""
    load = {"sessionId": SID, "cwd": "/tmp", "mcpServers": []}
    failed = {"code": -32603, "message": "Internal error"}
    refused = [
        ("sent", request(4, "session/load", load)),
        ("received", {"jsonrpc": "2.0", "id": 4, "error": failed}),
    ]
    assert ids([*v1_opening(load=True), *v1_turn(), *refused]) == ["sessions.load_replays_history"]
    assert ids([*v1_opening(load=True), *refused]) == []


def test_a_message_the_schema_refuses_names_the_first_problems_pointer() -> None:
    frames = v1_opening() + v1_turn("end_turn", ("received", update("agent_message_chunk")))
    found = check_recording(recording(frames), 0)
    assert [v.case for v in found] == ["output.messages_fit_the_schema"]
    assert found[0].message.startswith("/params/update/content")


def test_a_request_read_before_the_end_of_input_and_never_answered() -> None:
    # The suite's case: requests written, then the agent's stdin closed; "every request read
    # before the end of input is answered" (JSON-RPC 2.0 §4, "MUST reply").
    frames = [*v1_opening(), ("sent", request(3, "session/new", {"cwd": "/", "mcpServers": []}))]
    closed = len(frames)
    assert eof_ids(frames, 0, closed) == ["eof.every_request_read_is_answered"]
    assert eof_ids(frames, -15, closed) == []  # ended by a signal: no verdict
    assert eof_ids(frames, None, closed) == []  # the recording stops first
    # The agent died with its input still open (the official Python SDK's example on a batch):
    # the suite's case asks nothing of it, nor does the check.
    assert eof_ids(frames, 0, None) == []


def eof_ids(frames: list[Frame], exit_status: int | None, closed: int | None) -> list[str]:
    return [v.case for v in check_recording(recording(frames), exit_status, closed)]


def test_the_end_of_input_is_read_from_the_recording_in_its_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`{"eof": "sent"}`: the editor closed the agent's input; `{"eof": "received"}`: the agent
    ended its output. Only an input closed while the agent's output was still open, the agent
    then exiting on its own, is the suite's end of input."""
    frames = [*v1_opening(), ("sent", request(3, "session/new", {"cwd": "/", "mcpServers": []}))]
    opened = [json_line({"acpTrace": 2, "program": ["agent"]})]
    opened += [json_line({"t": 0.1, "dir": d, "json": m}) for d, m in frames]
    sent, received = json_line({"t": 1, "eof": "sent"}), json_line({"t": 1, "eof": "received"})
    exit_line = json_line({"t": 2, "exit": 0})
    path = tmp_path / "rec.jsonl"
    for ending, status in (
        ([sent, received, exit_line], 1),
        ([received, sent, exit_line], 0),  # the agent's output ended first: it died
        ([received, exit_line, sent], 0),  # it exited, then the editor closed its end
        ([exit_line], 0),  # a recording of format 1 does not say
    ):
        path.write_text("".join(opened + ending), encoding="utf-8")
        assert main(["check", "--quiet", str(path)]) == status, ending
        said = capsys.readouterr().out
        assert ("eof.every_request_read_is_answered" in said) == (status == 1), said
    # `trace view` reads the events too (no line skipped) and shows the check's problem
    path.write_text("".join([*opened, sent, received, exit_line]), encoding="utf-8")
    assert main(["view", str(path)]) == 0
    seen = capsys.readouterr()
    assert "skipped" not in seen.err and "eof.every_request_read_is_answered" in seen.out


def json_line(record: dict[str, Any]) -> str:
    import json

    return json.dumps(record) + "\n"


def test_v2_idle_without_running_breaks_running_then_idle() -> None:
    assert ids(v2_opening() + v2_work(running=False)) == [
        "lifecycle.turn_reports_running_then_idle"
    ]


def test_v2_a_prompt_answered_after_its_work_ended_is_not_waiting_for_running() -> None:
    """The work a prompt started may report running and idle before the prompt's answer (a
    loaded agent writes them first): an idle after that answer is no idle of that prompt's work,
    and breaks no running-then-idle (the conformance fixture v2_update_after_close, whose idle
    50 ms after a close answer came after such an answer under load)."""
    work = v2_work()
    answer, rest = work[1], work[:1] + work[2:]
    frames = v2_opening() + rest + [answer, ("received", state("idle", stopReason="end_turn"))]
    assert ids(frames) == []


def test_v2_a_chunk_after_its_idle_breaks_updates_before_idle() -> None:
    frames = v2_opening() + v2_work() + [("received", chunk("late", messageId="r-1"))]
    assert ids(frames) == ["lifecycle.updates_before_idle"]


def test_v2_a_cancel_ending_the_work_end_turn_breaks_idle_cancelled() -> None:
    read = read_after(CANCEL)
    assert ids(v2_opening() + v2_work(*read)) == ["lifecycle.cancel_ends_the_work_idle_cancelled"]
    assert ids(v2_opening() + v2_work(*read, end="cancelled")) == []


def test_v2_work_that_ends_as_the_cancel_is_sent_is_no_verdict() -> None:
    assert ids(v2_opening() + v2_work(CANCEL)) == []


def test_v2_work_that_ends_as_the_close_is_sent_is_no_verdict() -> None:
    """An idle `end_turn` written before the agent was seen to read the close: the work ended
    as the close was sent (the suite skips it); after it, the close must end it `cancelled`."""
    close = ("sent", request(4, "session/close", {"sessionId": SID}))
    answered = ("received", result(4, {}))
    work = v2_work()
    raced = v2_opening() + work[:-1] + [close, work[-1], answered]
    assert ids(raced) == []
    read = v2_opening() + work[:-1] + [*read_after(close), work[-1], answered]
    assert ids(read) == ["lifecycle.close_reports_idle_cancelled_before_its_answer"]


def test_v2_close_during_the_work_answered_before_its_idle_and_then_an_update() -> None:
    work = v2_work()
    close = [
        ("sent", request(4, "session/close", {"sessionId": SID})),
        ("received", result(4, {})),
    ]
    frames = v2_opening() + work[:-1] + close + [work[-1]]
    assert ids(frames) == [
        "lifecycle.close_reports_idle_cancelled_before_its_answer",
        "lifecycle.close_sends_nothing_after_its_answer",
    ]


def test_every_violation_carries_the_suites_own_level_and_quote() -> None:
    frames = [
        *v1_clean(),
        ("received", chunk("late")),
        ("received", result(2, {"sessionId": SID})),
        ("sent", notification("session/cancel", {"sessionId": SID})),
        ("received", {"jsonrpc": "2.0", "id": None, "result": {}}),
    ]
    edition = load_edition("v1")
    cases = {c.id: c for c in [*all_cases(edition.data), *all_client_cases(edition)]}
    found = check_recording(recording(frames), 0)
    assert len(found) == 3
    for violation in found:
        assert (violation.level, violation.quote) == (
            cases[violation.case].level,
            cases[violation.case].quote,
        )


def write(path: Path, frames: list[Frame], exit_status: int = 0) -> Path:
    import json

    lines = [{"acpTrace": 1, "program": ["agent"], "started": "2026-12-02T00:00:00+00:00"}]
    lines += [{"t": n / 10, "dir": d, "json": m} for n, (d, m) in enumerate(frames)]
    lines.append({"t": len(frames) / 10, "exit": exit_status})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("frames", "status"),
    [
        (v1_clean(), 0),
        (v1_opening() + v1_turn("cancelled"), 0),  # informative only
        ([*v1_clean(), ("received", result("x", {}))], 1),  # a MUST rule
    ],
)
def test_the_exit_status_is_the_suites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], frames: list[Frame], status: int
) -> None:
    assert main(["check", str(write(tmp_path / "rec.jsonl", frames))]) == status
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith(f"{len(frames)} frames")


def test_an_unreadable_recording_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"t": 0, "dir": "sent", "json": {}}\nnot json\n', encoding="utf-8")
    assert main(["check", str(broken)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["check", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err


def turns(count: int, chunks: int = 5) -> Iterator[RecordedFrame]:
    """A long recording, made as it is read (never held): `count` turns of `chunks` updates."""
    for direction, message in v1_opening():
        yield RecordedFrame(0.0, "sent" if direction == "sent" else "received", message)
    for n in range(count):
        prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "x" * 200}]}
        yield RecordedFrame(0.0, "sent", request(10 + n, "session/prompt", prompt))
        for _ in range(chunks):
            yield RecordedFrame(0.0, "received", chunk("word " * 40))
        yield RecordedFrame(0.0, "received", result(10 + n, {"stopReason": "end_turn"}))


def peak_bytes(count: int) -> int:
    check_recording(turns(2), 0)  # rules loaded and cached before measuring
    tracemalloc.start()
    try:
        assert check_recording(turns(count), 0) == []
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_long_recording_is_checked_without_holding_its_frames() -> None:
    # ten times the frames (about 1 KB each: 6 MB more if they were held) take far less memory
    # than holding them would: what is kept per request is its method and session
    assert peak_bytes(1000) - peak_bytes(100) < 1_500_000


def test_a_batch_answered_after_the_clients_next_line_is_answered() -> None:
    # The suite writes a batch and its probe together: the batch's -32600 (null id) comes after
    # the probe was written, and answers it (envelope.json: one invalid request, a null id).
    batch = [request(9, "_conformance/echo", None)]
    invalid = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid"}}
    probe = request("probe", "_conformance/probe", None)
    frames = [*v1_clean(), ("sent", batch), ("sent", probe), ("received", invalid)]
    assert ids([*frames, ("received", result("probe", {}))]) == []
    # Never answered at all, or its only answer the probe's: the batch rule is broken.
    unanswered = [*v1_clean(), ("sent", batch), ("sent", probe), ("received", result("probe", {}))]
    assert ids(unanswered) == ["envelope.batch_of_one_request_is_one_invalid_request_with_null_id"]
    assert ids([*v1_clean(), ("sent", [])], None) == [
        "envelope.empty_array_is_one_invalid_request_with_null_id"
    ]


def test_requests_behind_a_batch_the_agent_stopped_at_are_the_batch_cases() -> None:
    # The official Python SDK's example (0.12.1): its reader fails on the suite's batch, it
    # writes nothing more, and exits 0 once its input is closed. The probe behind the batch is
    # the batch case's silence (the suite's own verdict), not a request read before the end.
    batch = [request(9, "_conformance/echo", None)]
    probe = request("probe", "_conformance/probe", None)
    new = request(3, "session/new", {"cwd": "/", "mcpServers": []})
    frames = [*v1_clean(), ("sent", batch), ("sent", probe)]
    assert eof_ids(frames, 0, len(frames)) == [
        "envelope.batch_of_one_request_is_one_invalid_request_with_null_id"
    ]
    # a request it read before the batch and never answered is the end of input's
    before = [*v1_clean(), ("sent", new), ("sent", batch), ("sent", probe)]
    assert eof_ids(before, 0, len(before)) == [
        "eof.every_request_read_is_answered",
        "envelope.batch_of_one_request_is_one_invalid_request_with_null_id",
    ]
    # an agent that still wrote after the batch was reading: what it left is the end's
    went_on = [*frames, ("sent", new), ("received", chunk("late"))]
    assert "eof.every_request_read_is_answered" in eof_ids(went_on, 0, len(went_on))


def test_v2_work_never_idle_at_the_recordings_end_is_no_verdict() -> None:
    # The client may close its end mid-work (the suite's eof case does; the official TypeScript
    # SDK's agent then logs "could not send the idle update" and exits 0): the agent exiting on
    # its own shows no broken rule. The suite's own verdict on work that never reports idle
    # rests on a deadline (passive.json's suiteCasesInPart).
    work = v2_opening() + v2_work()[:-1]  # running, a chunk, no idle
    assert ids(work, 0) == ids(work, -9) == ids(work, None) == []
