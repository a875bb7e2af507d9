"""`trace check --from FORMAT` and `trace import`: logs other tools write, read as recordings.
The official Rust SDK's conductor trace (`agent-client-protocol-conductor --trace FILE`: request,
response and notification events between named components) and a plain JSON-RPC line log
(`-->` / `<--` markers) are judged as our own recordings are, and `import` writes them in our
format, frame for frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.trace.__main__ import main
from acp_protocol.trace.frames import read_frames
from acp_protocol.trace.imports import load

SID = "s-1"
INIT = {"protocolVersion": 1, "clientCapabilities": {}}
PROMPT = {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]}
CHUNK = {
    "sessionId": SID,
    "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}},
}
READ = {"sessionId": SID, "path": "/tmp/notes.txt"}


P, A, C = "Proxy(0)", "Agent", "Client"
NEW = {"cwd": "/", "mcpServers": []}
NOT_FOUND = {"code": -32601, "message": "Method not found"}


def req(ts: float, src: str, dst: str, id_: Any, method: str, params: Any, **more: Any) -> Any:
    return {"type": "request", "ts": ts, "protocol": "acp", "from": src, "to": dst, "id": id_} | {
        "method": method,
        "params": params,
        **more,
    }


def res(ts: float, src: str, dst: str, id_: Any, payload: Any, **more: Any) -> Any:
    is_error = "code" in payload
    return {"type": "response", "ts": ts, "from": src, "to": dst, "id": id_} | {
        "is_error": is_error,
        "payload": payload,
        **more,
    }


def rust_sdk_trace() -> list[dict[str, Any]]:
    """A conductor's trace with one proxy: the client's link, the proxy's link to the agent,
    and an MCP-over-ACP call; the agent reads a file from a client that offered no `fs`."""
    update = {"type": "notification", "ts": 0.12, "protocol": "acp", "from": A, "to": P}
    return [
        req(0.01, C, P, 1, "initialize", INIT),
        req(0.02, P, A, 1, "initialize", INIT),
        res(0.03, A, P, 1, {"protocolVersion": 1}),
        res(0.04, P, C, 1, {"protocolVersion": 1}),
        req(0.05, P, A, 2, "session/new", NEW),
        res(0.06, A, P, 2, {"sessionId": SID}),
        req(0.07, P, A, 3, "session/prompt", PROMPT),
        req(0.08, A, P, 9, "tools/call", {}, protocol="mcp"),
        res(0.09, P, A, 9, {"code": -1, "message": "no"}, error_domain="mcp"),
        req(0.10, A, P, 0, "fs/read_text_file", READ),
        res(0.11, P, A, 0, NOT_FOUND),
        update | {"method": "session/update", "session": SID, "params": CHUNK},
        res(0.13, A, P, 3, {"stopReason": "end_turn"}),
    ]


@pytest.fixture
def conductor_trace(tmp_path: Path) -> Path:
    path = tmp_path / "trace.jsons"
    path.write_text("".join(json.dumps(e) + "\n" for e in rust_sdk_trace()), encoding="utf-8")
    return path


def test_a_rust_sdk_trace_keeps_the_link_asked_for_and_rebuilds_each_message(
    conductor_trace: Path,
) -> None:
    loaded = load(conductor_trace, "rust-sdk", ("Proxy(0)", "Agent"))
    assert [(f.dir, f.value.get("method"), f.value.get("id")) for f in loaded.frames] == [
        ("sent", "initialize", 1),
        ("received", None, 1),
        ("sent", "session/new", 2),
        ("received", None, 2),
        ("sent", "session/prompt", 3),
        ("received", "fs/read_text_file", 0),
        ("sent", None, 0),
        ("received", "session/update", None),
        ("received", None, 3),
    ]
    assert loaded.frames[6].value["error"]["code"] == -32601
    assert loaded.frames[8].value == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"stopReason": "end_turn"},
    }
    assert loaded.skipped == 4  # the client's link (2) and the MCP call (2)
    assert [f.dir for f in load(conductor_trace, "rust-sdk").frames] == []  # no Client-Agent link


def test_check_from_rust_sdk_reports_the_suites_case(
    conductor_trace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", "--from", "rust-sdk", "--between", "Proxy(0)", "Agent", str(conductor_trace)]
    assert main(argv) == 0  # the rule is informative
    out = capsys.readouterr().out
    assert "output.unadvertised.fs/read_text_file  [agent] frame 5" in out


def test_import_writes_our_format_frame_for_frame(conductor_trace: Path, tmp_path: Path) -> None:
    out = tmp_path / "imported.jsonl"
    argv = ["import", "--from", "rust-sdk", "--between", "Proxy(0)", "Agent", str(conductor_trace)]
    assert main([*argv, "--out", str(out)]) == 0
    loaded = load(conductor_trace, "rust-sdk", ("Proxy(0)", "Agent"))
    assert [(f.t, f.dir, f.value) for f in read_frames(out)] == [
        (f.t, f.dir, f.value) for f in loaded.frames
    ]
    assert main(["check", str(out)]) == 0


def rpc(id_: int, method: str | None = None, **body: Any) -> str:
    message = {"jsonrpc": "2.0", "id": id_, **({"method": method} if method else {}), **body}
    return json.dumps(message, separators=(",", ":"))


LINE_LOG = "\n".join(
    [
        "starting agent (this line has no marker)",
        "2026-12-02T10:00:00.000Z --> " + rpc(1, "initialize", params=INIT),
        "2026-12-02T10:00:00.250Z <-- " + rpc(1, result={"protocolVersion": 1}),
        "2026-12-02T10:00:00.300Z --> "
        + rpc(2, "session/new", params={"cwd": "/", "mcpServers": []}),
        "2026-12-02T10:00:00.400Z <-- " + rpc(2, result={"sessionId": SID}),
        "> " + rpc(3, "session/prompt", params=PROMPT),
        "< " + rpc(3, result={"stopReason": "end_turn"}),
        "< DEBUG: turn over",
        "< " + rpc(3, result={"stopReason": "end_turn"}),
    ]
)


def test_a_line_log_reads_markers_times_and_raw_lines(tmp_path: Path) -> None:
    path = tmp_path / "acp.log"
    path.write_text(LINE_LOG, encoding="utf-8")
    loaded = load(path, "lines")
    assert [f.dir for f in loaded.frames] == ["sent", "received"] * 3 + ["received"] * 2
    assert [f.t for f in loaded.frames[:4]] == [0.0, 0.25, 0.3, 0.4]
    assert loaded.frames[6].raw == "DEBUG: turn over"
    assert loaded.skipped == 1


def test_check_from_lines_reports_each_fault_with_its_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "acp.log"
    path.write_text(LINE_LOG, encoding="utf-8")
    assert main(["check", "--quiet", "--from", "lines", str(path)]) == 1
    found = [line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]]
    assert found == ["output.stdout_lines_are_json_rpc_messages", "output.one_answer_per_request"]


REAL_TRACE = Path(__file__).with_name("data") / "rust_sdk_conductor_v1.jsons"
"""A trace the official Rust SDK's conductor wrote (agent-client-protocol-conductor 5.0.0 from
crates.io, `--trace FILE agent "python agent_v1.py"`), around our Python v1 starter pair asked
for a permission (`client_v1.py --approve-all --prompt "ask to write out.txt"`). The conductor
names its links' requests with ids of its own (UUIDs)."""


def test_a_real_conductor_trace_of_our_starters_reads_whole_and_breaks_no_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    loaded = load(REAL_TRACE, "rust-sdk")
    methods = [f.value.get("method") for f in loaded.frames]
    assert methods == [
        "initialize",
        None,
        "session/new",
        None,
        "session/prompt",
        "session/request_permission",
        None,
        "session/update",
        None,
    ]
    assert loaded.skipped == 0
    assert main(["check", "--from", "rust-sdk", str(REAL_TRACE)]) == 0
    assert capsys.readouterr().out.endswith(
        "9 frames, 0 violations (0 MUST, 0 SHOULD, 0 informative): no MUST rule broken\n"
    )
