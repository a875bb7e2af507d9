"""`python -m acp_protocol.trace view FILE`: a recording summarised on the terminal. Judged on the
field's recordings of production agents (v1 and v2), each expectation read from the recording's
own lines (tests/trace/recordings.py), and on broken files: a line that cannot be read is one
line naming FILE:LINE and the rest is still summarised."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.trace.__main__ import main
from acp_protocol.trace.view import summarise
from acp_protocol.trace.view_read import Frame
from acp_protocol.trace.view_summary import Summariser

from tests.trace.recordings import every, one


def test_every_field_recording_is_summarised_with_one_turn_per_prompt_sent() -> None:
    for held in every():
        _, summary = summarise(held.path)
        assert summary.frames == len(held.frames), held.path.name
        assert len(summary.turns) == len(held.requests("sent", "session/prompt")), held.path.name
        assert summary.edition == held.edition, held.path.name


def test_a_v1_turn_ends_with_its_answer_and_lasts_until_it() -> None:
    held = one(1, "session/prompt", "session/request_permission")
    index, prompt = held.requests("sent", "session/prompt")[0]
    answered, answer = held.answer("sent", prompt)
    turn = summarise(held.path)[1].turns[0]
    assert turn.stop == answer["result"]["stopReason"]
    assert turn.duration == pytest.approx(held.t(answered) - held.t(index))
    assert (turn.request.index, turn.end) == (index, answered)


def test_a_v2_turn_is_answered_with_its_message_id_and_ends_at_idle() -> None:
    held = one(2, "session/prompt", "session/request_permission")
    index, _ = held.requests("sent", "session/prompt")[0]
    idle = [(n, u) for n, u in held.updates("state_update") if u["state"] == "idle" and n > index]
    turn = summarise(held.path)[1].turns[0]
    assert turn.stop == idle[0][1]["stopReason"]
    assert turn.end == idle[0][0]
    assert turn.duration == pytest.approx(held.t(idle[0][0]) - held.t(index))


@pytest.mark.parametrize("edition", [1, 2])
def test_tool_calls_end_with_the_status_of_their_last_update(edition: int) -> None:
    held = one(edition, "session/request_permission")
    summary = summarise(held.path)[1]
    assert {tool.id for tool in summary.tools.values()} == held.tool_call_ids()
    for tool in summary.tools.values():
        statuses = [
            u["status"]
            for _, u in held.updates()
            if u.get("toolCallId") == tool.id and "status" in u
        ]
        assert tool.status == statuses[-1]


@pytest.mark.parametrize("edition", [1, 2])
def test_a_permission_request_shows_the_option_chosen_and_how_long_the_user_took(
    edition: int,
) -> None:
    held = one(edition, "session/request_permission")
    index, request = held.requests("received", "session/request_permission")[0]
    answered, answer = held.answer("received", request)
    permission = summarise(held.path)[1].permissions[0]
    assert permission.answer.startswith(answer["result"]["outcome"]["optionId"])
    assert permission.request.latency == pytest.approx(held.t(answered) - held.t(index))


@pytest.mark.parametrize("edition", [1, 2])
def test_a_cancel_shows_how_long_the_agent_took_to_end_the_turn_cancelled(edition: int) -> None:
    held = one(edition, "session/cancel")
    cancelled = next(n for n, m in held.messages("sent") if m.get("method") == "session/cancel")
    cancel = summarise(held.path)[1].cancels[0]
    assert cancel.turn is not None and cancel.turn.stop == "cancelled"
    assert cancel.turn.end is not None
    assert cancel.honoured == pytest.approx(held.t(cancel.turn.end) - held.t(cancelled))


def test_the_terminal_summary_names_each_session_turn_and_tool_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    held = one(2, "session/request_permission")
    assert main(["view", str(held.path)]) == 0
    out = capsys.readouterr().out
    for _, result in held.messages("received"):
        if isinstance(result.get("result"), dict) and "sessionId" in result["result"]:
            assert f"session {result['result']['sessionId']}" in out
    assert out.count("\n  turn ") == len(held.requests("sent", "session/prompt"))
    assert out.count("\n    tool ") == len(held.tool_call_ids())


def test_a_truncated_last_line_is_one_line_naming_its_file_and_line_and_the_rest_is_summarised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held = one(1, "session/cancel")
    lines = held.path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    assert main(["view", str(cut)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(
        f"trace: {cut}:{len(lines)}: not JSON (the last line, cut short)"
    )
    assert f"{len(held.requests('sent', 'session/prompt'))} turns" in captured.out


def test_a_file_that_is_not_a_recording_is_one_line_naming_it_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello\nworld\n", encoding="utf-8")
    assert main(["view", str(other)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"trace: {other}:1: not an ACP recording (")
    assert captured.err.count("\n") == 1
    assert captured.out == ""


def test_a_conformance_case_trace_is_viewed_as_its_frames(tmp_path: Path) -> None:
    held = one(2, "session/request_permission")
    case = tmp_path / "case.json"
    trace = {"caseId": "x.y", "program": ["agent"], "frames": held.frames, "stderr": ""}
    case.write_text(json.dumps(trace, indent=1), encoding="utf-8")
    recording, summary = summarise(case)
    assert (recording.case, summary.frames) == ("x.y", len(held.frames))
    assert len(summary.turns) == len(held.requests("sent", "session/prompt"))


def frames(*messages: tuple[str, Any]) -> list[Frame]:
    return [Frame(n, n + 2, n / 10, d, m, None) for n, (d, m) in enumerate(messages)]


def problem_kinds(held: list[Frame]) -> list[tuple[str, int | None]]:
    return [(p.kind, p.frame) for p in Summariser().feed_all(held).problems]


SESSION = {"sessionId": "s"}
INIT = (
    "sent",
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
)
INITED = ("received", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})
PROMPT = (
    "sent",
    {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {**SESSION, "prompt": []}},
)
CHUNK = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
UPDATE = (
    "received",
    {"jsonrpc": "2.0", "method": "session/update", "params": {**SESSION, "update": CHUNK}},
)


def test_a_request_never_answered_is_a_problem_at_its_frame() -> None:
    assert problem_kinds(frames(INIT, INITED, PROMPT)) == [("never answered", 2)]


def test_an_error_answer_is_a_problem_at_the_answer() -> None:
    error = ("received", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}})
    assert problem_kinds(frames(INIT, INITED, PROMPT, error)) == [("error answer", 3)]


def test_a_v1_turn_update_after_its_answer_is_a_problem() -> None:
    answer = ("received", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    found = problem_kinds(frames(INIT, INITED, PROMPT, UPDATE, answer, UPDATE))
    assert found == [("update after the answer", 5)]


def test_an_answer_to_no_request_is_a_problem() -> None:
    stray = ("received", {"jsonrpc": "2.0", "id": 7, "result": {}})
    assert problem_kinds(frames(INIT, INITED, stray)) == [("answer to no request", 2)]


def test_a_turn_s_messages_are_the_client_state_s_text() -> None:
    answer = ("received", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    summary = Summariser().feed_all(frames(INIT, INITED, PROMPT, UPDATE, UPDATE, answer))
    turn = summary.turns[0]
    [(target, key)] = turn.messages
    assert summary.message_text("s", target, key) == "hihi"


def plan(*statuses: str) -> dict[str, Any]:
    entries = [
        {"content": f"step {n}", "priority": "medium", "status": s} for n, s in enumerate(statuses)
    ]
    return {"sessionUpdate": "plan", "entries": entries}


def test_a_v1_plan_is_shown_as_each_version_it_went_through() -> None:
    versions = [plan("pending", "pending"), plan("completed", "in_progress")]
    updates = [
        (
            "received",
            {"jsonrpc": "2.0", "method": "session/update", "params": {**SESSION, "update": p}},
        )
        for p in versions
    ]
    answer = ("received", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    turn = Summariser().feed_all(frames(INIT, INITED, PROMPT, *updates, answer)).turns[0]
    assert [(index, entries) for index, _, entries in turn.plans] == [
        (3, versions[0]["entries"]),
        (4, versions[1]["entries"]),
    ]


def test_a_v2_plan_is_shown_by_its_plan_id_items_or_markdown() -> None:
    v2 = {"protocolVersion": 2}
    init = ("sent", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": v2})
    inited = ("received", {"jsonrpc": "2.0", "id": 0, "result": v2})
    items = {"planId": "p", "type": "items", "entries": plan("pending")["entries"]}
    markdown = {"planId": "p", "type": "markdown", "content": "# do it"}
    updates = [
        (
            "received",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {**SESSION, "update": {"sessionUpdate": "plan_update", "plan": p}},
            },
        )
        for p in (items, markdown)
    ]
    turn = Summariser().feed_all(frames(init, inited, PROMPT, *updates)).turns[0]
    assert [entries for _, _, entries in turn.plans] == [
        items["entries"],
        [{"status": "markdown", "content": "# do it"}],
    ]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def test_the_page_escapes_what_the_programs_wrote(tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    prompt = {**SESSION, "prompt": [{"type": "text", "text": hostile}]}
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": hostile}}
    records = [
        {"acpTrace": 1, "program": [hostile], "started": hostile},
        {"t": 0, "dir": "sent", "json": INIT[1]},
        {"t": 0.1, "dir": "received", "json": INITED[1]},
        {"t": 0.2, "dir": "sent", "json": {**PROMPT[1], "params": prompt}},
        {
            "t": 0.3,
            "dir": "received",
            "json": {**UPDATE[1], "params": {**SESSION, "update": chunk}},
        },
        {"t": 0.4, "dir": "received", "raw": hostile},
        {"t": 0.5, "stderr": hostile},
    ]
    recording, page = tmp_path / "hostile.jsonl", tmp_path / "hostile.html"
    recording.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert main(["view", str(recording), "--html", str(page)]) == 0
    parser = Tags()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.tags.count("script") == 1  # the page's own
    assert "img" not in parser.tags


def fake_check(monkeypatch: pytest.MonkeyPatch, judge: Any) -> None:
    """`acp_protocol.trace.check` replaced by a module whose `check_recording` is `judge`."""
    module = types.ModuleType("acp_protocol.trace.check")
    module.check_recording = judge  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acp_protocol.trace.check", module)


def test_trace_check_s_violations_are_the_problems_with_case_level_and_quote(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    held = one(1, "session/cancel")
    seen: list[int] = []

    def judge(
        frames: Iterable[Any], exit_status: int | None, input_closed: int | None
    ) -> list[Any]:
        seen.append(sum(1 for _ in frames))
        quote = types.SimpleNamespace(text="The Agent MUST respond", source="schema.json")
        return [
            types.SimpleNamespace(
                case="prompt.x", level="MUST", quote=quote, frame=3, message="late"
            )
        ]

    fake_check(monkeypatch, judge)
    assert main(["view", str(held.path)]) == 0
    out = capsys.readouterr().out
    assert seen == [len(held.frames)]
    assert out.endswith("problems: 1\n  #3 MUST prompt.x: late\n")


def test_a_check_that_fails_is_one_line_and_the_summary_s_own_problems_stand(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def judge(
        frames: Iterable[Any], exit_status: int | None, input_closed: int | None
    ) -> list[Any]:
        raise KeyError("boom")

    fake_check(monkeypatch, judge)
    held = one(1, "session/cancel")
    assert main(["view", str(held.path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == (
        "trace: trace check failed (KeyError: 'boom'); the summary's own problems\n"
    )
    assert "\nproblems: " in captured.out


def test_error_answers_and_requests_never_answered_are_listed_with_their_frames(
    capsys: pytest.CaptureFixture[str],
) -> None:
    held = next(h for h in every() if any("error" in m for _, m in h.messages("sent")))
    errors = [
        n
        for direction in ("sent", "received")
        for n, m in held.messages(direction)
        if "error" in m and "method" not in m
    ]
    assert main(["view", str(held.path)]) == 0
    out = capsys.readouterr().out
    assert f"\nerror answers: {len(errors)}\n" in out
    for n in errors:
        assert f"\n  #{n} " in out
