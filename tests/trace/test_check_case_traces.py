"""`trace check` on what the conformance suite recorded (`--trace DIR`: one JSON file per case,
docs/conformance.md "The trace format"): a case trace, or the whole folder, is judged as a
recording of the program under test. The suite's own side breaks rules on purpose (params a
schema refuses, ids of every type), so only the tested program's side is judged: the agent's
under `conformance agent`, the client's under `conformance client` (whose traces hold the
suite's agent as `sent`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.trace.__main__ import main

SID = "s-1"


def frame(t: float, direction: str, value: Any) -> dict[str, Any]:
    return {"t": t, "dir": direction, "json": value}


def case_trace(case_id: str, protocol: str, frames: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "caseId": case_id,
        "title": "…",
        "level": "MUST",
        "requires": [],
        "quote": {"text": "…", "source": "…"},
        "protocol": protocol,
        "program": ["python", "agent.py"],
        "outcome": "pass",
        "reason": "",
        "details": [],
        "seconds": 0.1,
        "afterCases": [],
        "frames": frames,
        "stderr": "",
    }


def write(folder: Path, trace: dict[str, Any]) -> Path:
    path = folder / (str(trace["caseId"]).replace("/", "_") + ".json")
    path.write_text(json.dumps(trace, indent=1), encoding="utf-8")
    return path


INFO = {"name": "fixture", "version": "1.0"}
V2_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": 2, "info": INFO, "capabilities": {}},
}
V2_INITIALIZED = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {"protocolVersion": 2, "info": INFO, "capabilities": {}, "authMethods": []},
}


def answered_notification(folder: Path) -> Path:
    """A v2 envelope case run after others on the same agent: no `initialize` in its frames,
    and the agent answers the notification the suite sent."""
    trace = case_trace(
        "envelope.notification_passes_to_the_handler_and_is_never_answered",
        "v2",
        [
            frame(0.1, "sent", {"jsonrpc": "2.0", "method": "session/cancel", "params": {}}),
            frame(0.2, "received", {"jsonrpc": "2.0", "id": None, "result": {}}),
        ],
    )
    trace["afterCases"] = ["envelope.empty_line_is_ignored"]
    return write(folder, trace)


def refused_params(folder: Path) -> Path:
    """The suite sends `session/new` params its schema refuses, on purpose; the agent answers
    -32602 as it should: nothing to report."""
    refused = {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {}}
    invalid = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid params"}}
    trace = case_trace(
        "params.invalid.session/new",
        "v2",
        [
            frame(0.0, "sent", V2_INIT),
            frame(0.1, "received", V2_INITIALIZED),
            frame(0.2, "sent", refused),
            frame(0.3, "received", invalid),
        ],
    )
    return write(folder, trace)


def test_a_case_trace_is_judged_by_its_edition_on_the_agents_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--quiet", str(refused_params(tmp_path))]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "4 frames, 0 violations (0 MUST, 0 SHOULD, 0 informative): no MUST rule broken"
    )
    assert main(["check", "--quiet", str(answered_notification(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "MUST         notifications.never_answered.session/cancel  [agent] frame 1" in out


def test_a_client_case_trace_judges_the_client(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # In a client case's trace `sent` is the suite's agent: the client answers the agent's
    # session/update notification (a client rule), while the suite's agent answers with an id
    # no request had on purpose (client.ids.* send such things): only the first is reported.
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    update = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SID, "update": chunk},
    }
    init = {"protocolVersion": 1, "clientCapabilities": {}}
    trace = case_trace(
        "client.notifications.never_answered.session/update",
        "v1",
        [
            frame(
                0.0, "received", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}
            ),
            frame(0.1, "sent", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
            frame(0.2, "sent", {"jsonrpc": "2.0", "id": 99, "result": {}}),
            frame(0.3, "sent", update),
            frame(0.4, "received", {"jsonrpc": "2.0", "id": None, "result": {}}),
        ],
    )
    assert main(["check", "--quiet", str(write(tmp_path, trace))]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == [
        "client.notifications.never_answered.session/update"
    ]
    assert "[client] frame 4" in lines[0]


def test_the_suites_trace_folder_is_judged_case_by_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused_params(tmp_path)
    answered_notification(tmp_path)
    assert main(["check", "--quiet", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    case = "envelope.notification_passes_to_the_handler_and_is_never_answered"
    assert lines[0] == f"{case}.json ({case}, pass):"
    assert lines[1].split()[1] == "notifications.never_answered.session/cancel"
    assert lines[-1] == (
        "2 case traces, 6 frames, 1 violations (1 MUST, 0 SHOULD, 0 informative): "
        "MUST rule broken"
    )


def test_an_agent_that_exited_with_its_case_is_judged_on_what_it_left_unanswered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/new",
        "params": {"cwd": "/", "mcpServers": []},
    }
    frames = [
        frame(0.0, "sent", V2_INIT),
        frame(0.1, "received", V2_INITIALIZED),
        frame(0.2, "sent", new),
    ]
    trace = case_trace("eof.every_request_read_is_answered", "v2", frames)
    trace["exit"] = 0  # it exited on its own, session/new never answered
    assert main(["check", "--quiet", str(write(tmp_path, trace))]) == 1
    assert "eof.every_request_read_is_answered  [agent] frame 2" in capsys.readouterr().out
    trace["exit"] = -9  # the suite ended it: no verdict
    assert main(["check", "--quiet", str(write(tmp_path, trace))]) == 0


def test_a_line_the_suite_sent_as_bytes_is_judged_as_the_json_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The suite keeps a line it sent as given bytes as `raw` text; the agent read it as JSON,
    # as a recording holds it: a batch the agent never answers breaks the batch rule.
    batch = '[{"jsonrpc":"2.0","id":1,"method":"_conformance/echo"}]'
    trace = case_trace(
        "envelope.batch_of_one_request_is_one_invalid_request_with_null_id",
        "v2",
        [frame(0.0, "sent", V2_INIT), frame(0.1, "received", V2_INITIALIZED)],
    )
    trace["frames"].append({"t": 0.2, "dir": "sent", "raw": batch})
    assert main(["check", "--quiet", str(write(tmp_path, trace))]) == 0  # informative
    out = capsys.readouterr().out
    assert "envelope.batch_of_one_request_is_one_invalid_request_with_null_id  [agent]" in out
