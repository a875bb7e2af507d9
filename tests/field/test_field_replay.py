"""Tolerance, measured: every recorded frame of the field (tests/field/recordings/*.jsonl, what
production agents sent our clients and what our clients answered) replayed through the Python,
TypeScript and Go runtimes (tests/field/replay.py and its twins).

- Every message decodes with the generated decoders of its method, in the negotiated edition's
  stable and unstable schemas, in all three runtimes; what a runtime does not know is kept (only
  the schema's own default-on-error rules may drop a value), `_`-prefixed methods are extensions.
- Each runtime's client state ends with what the recording's updates describe: each message's
  text (its chunks joined, per role), each tool call's final status, title, kind and content, the
  plan, the usage, the v2 session state, worked out here from the frames, not by a reducer; and
  the three runtimes' snapshots are equal.

`make test` replays the committed recordings (claude-agent-acp 0.101.0, pinned, v1 and v2, and
whatever the field committed): the same turns run fresh in tests/field/test_claude_turns.py, and a
replay costs well under a second where a fresh turn costs half a minute. `make field` runs this
module after every agent's turns have rewritten their recordings, so it replays fresh ones.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.field import probes
from tests.field.replay import negotiated
from tests.field.replay_builds import RUNTIMES, Replayers, build_all, replay, typescript_folder

RECORDINGS = Path(__file__).with_name("recordings")
FOUND = sorted(RECORDINGS.glob("*.jsonl"))
CHUNKS = {
    "user_message_chunk": "userMessage",
    "agent_message_chunk": "agentMessage",
    "agent_thought_chunk": "agentThought",
}
WHOLE = {"user_message": "userMessage", "agent_message": "agentMessage"}
WHOLE |= {"agent_thought": "agentThought"}
TOOL_FIELDS = ("status", "title", "kind", "content")
Report = dict[str, Any]


AGENT_FAILURES = {
    # fast-agent-mcp 0.10.48 answers a v2 `initialize` with `protocolVersion: 2` and a v1 body
    # (`agentCapabilities`, `agentInfo`; its agent_acp_server.py: "Echo back the client's
    # version"): v2 requires `info` (docs/field.md). Our v2 clients refuse it in one line.
    "fast-agent-acp": {("initialize", "/result/info")},
}
"""What the field's agents send that the schema refuses, written down (docs/field.md): the
replay reports it, and it is not ours to accept."""


@pytest.fixture(scope="session")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("recordings")


@pytest.fixture(scope="session")
def replayers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replayers]:
    """The three replay programs, built once a session."""
    folder = typescript_folder()
    try:
        yield build_all(tmp_path_factory.mktemp("replay"), folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_REPORTS: dict[tuple[str, Path], Report] = {}
_COPIES: dict[Path, Path] = {}


def frozen(recording: Path, scratch: Path) -> Path:
    """A copy of `recording` made at its first use: the runtimes and the description read the
    same frames, even while a field run rewrites the file."""
    if recording not in _COPIES:
        _COPIES[recording] = scratch / f"{len(_COPIES)}-{recording.name}"
        shutil.copy(recording, _COPIES[recording])
    return _COPIES[recording]


def reports(replayers: Replayers, recording: Path) -> dict[str, Report]:
    """Each runtime's replay of `recording` (made once a session per file)."""
    for runtime in RUNTIMES:
        if (runtime, recording) not in _REPORTS:
            _REPORTS[runtime, recording] = replay(replayers[runtime], recording)
    return {runtime: _REPORTS[runtime, recording] for runtime in RUNTIMES}


def close(pointer: str, other: str) -> bool:
    """The same place, or one of them one token further (into a union's tag)."""
    longer, shorter = max(pointer, other, key=len), min(pointer, other, key=len)
    rest = longer.removeprefix(shorter)
    return rest == "" or (longer.startswith(shorter + "/") and rest.count("/") == 1)


def agent_of(recording: Path) -> str:
    """The agent's name in its `initialize` answer (v1 `agentInfo`, v2 `info`), or ""."""
    for line in recording.read_text().splitlines():
        message = json.loads(line).get("json")
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and "protocolVersion" in result:
            info = result.get("info") or result.get("agentInfo") or {}
            return str(info.get("name", ""))
    return ""


def lines(report: Report, key: str, recording: Path) -> list[str]:
    return [
        f"{recording.name}:{p['line']} (frame {p['frame']}, {p['dir']}) {p.get('edition', '')} "
        f"{p['method']} {p.get('pointer', '')} {p.get('message', '')}".rstrip()
        for p in report[key]
    ]


def test_the_field_has_recordings_of_both_editions() -> None:
    assert {negotiated(recording) for recording in FOUND} >= {1, 2}, FOUND


@pytest.mark.parametrize("recording", FOUND, ids=[r.stem for r in FOUND])
def test_every_recorded_message_decodes_in_every_runtime(
    replayers: Replayers, scratch: Path, recording: Path
) -> None:
    found = reports(replayers, frozen(recording, scratch))
    known = AGENT_FAILURES.get(agent_of(recording), set())
    for runtime in RUNTIMES:
        report = found[runtime]
        ours = [p for p in report["problems"] if (p["method"], p["pointer"]) not in known]
        refused = lines({"problems": ours}, "problems", recording)
        assert refused == [], f"{runtime}:\n" + "\n".join(refused)
        # Each runtime refuses the same messages at the same places (a missing tag: pydantic
        # names the union, TypeScript and Go its tag field, one level down).
        where = [(p["frame"], p["edition"]) for p in report["problems"]]
        assert where == [(p["frame"], p["edition"]) for p in found["python"]["problems"]]
        for mine, python in zip(report["problems"], found["python"]["problems"], strict=True):
            assert close(mine["pointer"], python["pointer"]), (mine, python)
    dropped = [line for r in RUNTIMES for line in lines(found[r], "dropped", recording)]
    assert dropped == [], "what a runtime does not know must be kept:\n" + "\n".join(dropped)
    # `_`-prefixed methods are extensions in every runtime; a method no edition has (answered
    # -32601, never decoded) is the same in every runtime.
    for runtime in RUNTIMES:
        assert found[runtime]["extensions"] == found["python"]["extensions"], runtime
        assert found[runtime]["unknown"] == found["python"]["unknown"], runtime


@pytest.mark.parametrize("recording", FOUND, ids=[r.stem for r in FOUND])
def test_every_runtime_ends_in_the_state_the_updates_describe(
    replayers: Replayers, scratch: Path, recording: Path
) -> None:
    copy = frozen(recording, scratch)
    found = reports(replayers, copy)
    expected = described(copy)
    for runtime in RUNTIMES:
        assert projection(found[runtime]["state"]) == expected, runtime
    # The three snapshots are the same JSON, logs and problems included.
    for runtime in RUNTIMES:
        assert found[runtime]["state"] == found["python"]["state"], runtime
    assert all(not s["problems"] for s in found["python"]["state"]["sessions"].values())


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_what_a_newer_agent_sends_is_kept_and_never_refused(
    replayers: Replayers, protocol: str, tmp_path: Path
) -> None:
    frames = probes.newer_v1() if protocol == "v1" else probes.newer_v2()
    recording = probes.write(frames, tmp_path / f"newer-{protocol}.jsonl")
    found = reports(replayers, recording)
    for runtime in RUNTIMES:
        report = found[runtime]
        assert report["protocol"] == protocol
        assert report["problems"] == [], lines(report, "problems", recording)
        # Only the schema's default-on-error rule drops anything: v1's unknown tool `kind`.
        dropped = {(d["frame"], d["pointer"]) for d in report["dropped"]}
        assert dropped == ({(10, "/params/update/kind")} if protocol == "v1" else set())
        assert [e["method"] for e in report["extensions"]] == ["_auth/status_update"]
        assert {u["method"] for u in report["unknown"]} == {"mystery/method"}
        session = report["state"]["sessions"][probes.SESSION]
        # The update kind nobody names is kept in the log, not applied, not a problem.
        assert [m["params"]["update"] for m in session["log"]] == [probes.UNKNOWN_UPDATE]
        assert session["problems"] == []
        # An unknown content block stays in its message, between the known ones.
        (message,) = session["targets"]["agentMessage"]
        assert [block["type"] for block in message["value"]["content"]] == [
            "text",
            "hologram",
            "text",
        ]
        assert projection(report["state"]) == described(recording)
        assert report["state"] == found["python"]["state"], runtime
    beyond = found["python"]["beyond"][protocol]
    assert "received session/new /result/models: a field the schema does not name" in beyond
    assert "received session/update /params/update: a variant the schema does not know" in beyond
    if protocol == "v1":  # the batches: the answer in one decoded by the request in the other
        assert "received session/set_mode /result/extra: a field the schema does not name" in beyond


def test_a_message_the_schema_refuses_is_reported_with_its_frame_and_pointer(
    replayers: Replayers, tmp_path: Path
) -> None:
    frames, frame, pointer = probes.refused_v1()
    recording = probes.write(frames, tmp_path / "refused.jsonl")
    found = reports(replayers, recording)
    for runtime in RUNTIMES:
        refused = {(p["frame"], p["edition"], p["pointer"]) for p in found[runtime]["problems"]}
        assert refused == {(frame, "v1", pointer), (frame, "v1/unstable", pointer)}, runtime
        # A message that does not decode never reaches the client state.
        assert found[runtime]["state"]["sessions"][probes.SESSION]["targets"] == {}


# What the updates describe, worked out from the frames alone (no reducer).


def described(recording: Path) -> dict[str, Any]:
    """Per session: each message's text by role, each tool call's final fields, the plan, the
    usage and (v2) the state, from the recording's frames in order."""
    sessions: dict[str, dict[str, Any]] = {}
    turns: dict[str, int] = {}
    for line in recording.read_text().splitlines():
        frame = json.loads(line)
        message = frame.get("json")
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            continue
        params = message.get("params") or {}
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            continue
        if frame["dir"] == "sent":
            if message["method"] == "session/prompt" and "id" in message:
                turns[session_id] = turns.get(session_id, 0) + 1
            continue
        session = sessions.setdefault(session_id, empty())
        if message["method"] == "session/request_permission":
            tool = params.get("toolCall") or (params.get("subject") or {}).get("toolCall")
            if isinstance(tool, dict) and isinstance(tool.get("toolCallId"), str):
                upsert_tool(session, tool)
        elif message["method"] == "session/update":
            describe_update(session, params.get("update") or {}, turns.get(session_id, 0))
    for session in sessions.values():
        for role, texts in session["messages"].items():
            session["messages"][role] = {i: "".join(pieces) for i, pieces in texts.items()}
        for tool_id, tool in session["toolCalls"].items():
            session["toolCalls"][tool_id] = {k: v for k, v in tool.items() if v is not None}
    return {sid: kept for sid, s in sessions.items() if (kept := {k: v for k, v in s.items() if v})}


def empty() -> dict[str, Any]:
    return {"messages": {}, "toolCalls": {}, "plan": {}, "usage": {}, "state": {}}


def describe_update(session: dict[str, Any], update: dict[str, Any], turn: int) -> None:
    kind = update.get("sessionUpdate")
    fields = {k: v for k, v in update.items() if k not in ("sessionUpdate", "_meta")}
    if kind in CHUNKS:
        message_id = update.get("messageId") or f"turn:{turn}"  # v1: a chunk without an id
        texts = session["messages"].setdefault(CHUNKS[kind], {}).setdefault(message_id, [])
        texts.append(text_of([update.get("content")]))
    elif kind in WHOLE:
        texts = session["messages"].setdefault(WHOLE[kind], {})
        texts[update["messageId"]] = [text_of(update.get("content") or [])]
    elif kind in ("tool_call", "tool_call_update"):
        upsert_tool(session, update)
    elif kind == "tool_call_content_chunk":
        tool = session["toolCalls"].setdefault(update["toolCallId"], {})
        tool["content"] = [*(tool.get("content") or []), update["content"]]
    elif kind == "plan":  # v1: the whole plan
        session["plan"] = {"": fields}
    elif kind == "plan_update":
        plan = update["plan"]
        session["plan"][plan["planId"]] = {k: v for k, v in plan.items() if k != "_meta"}
    elif kind == "plan_removed":
        session["plan"].pop(update.get("planId"), None)
    elif kind == "usage_update":
        session["usage"] = {
            k: v for k, v in {**session["usage"], **fields}.items() if v is not None
        }
    elif kind == "state_update":
        session["state"] = fields


def upsert_tool(session: dict[str, Any], update: dict[str, Any]) -> None:
    tool = session["toolCalls"].setdefault(update["toolCallId"], {})
    for name in TOOL_FIELDS:
        if name in update:
            tool[name] = update[name]


def text_of(blocks: list[Any]) -> str:
    return "".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def projection(state: dict[str, Any]) -> dict[str, Any]:
    """The same summary read from a client-state snapshot."""
    out = {}
    for session_id, session in state["sessions"].items():
        targets = session["targets"]
        summary = empty()
        for role in ("userMessage", "agentMessage", "agentThought"):
            for entry in targets.get(role, []):
                texts = summary["messages"].setdefault(role, {})
                texts[entry["id"]] = text_of(entry["value"].get("content") or [])
        for entry in targets.get("toolCall", []):
            value = entry["value"]
            summary["toolCalls"][entry["id"]] = {
                k: value[k] for k in TOOL_FIELDS if value.get(k) is not None
            }
        plan = targets.get("plan")
        if isinstance(plan, dict):  # v1: the plan itself
            summary["plan"] = {"": {k: v for k, v in plan.items() if k != "_meta"}}
        for entry in plan if isinstance(plan, list) else []:
            summary["plan"][entry["id"]] = {k: v for k, v in entry["value"].items() if k != "_meta"}
        summary["usage"] = {k: v for k, v in targets.get("usage", {}).items() if k != "_meta"}
        summary["state"] = {k: v for k, v in targets.get("state", {}).items() if k != "_meta"}
        if kept := {k: v for k, v in summary.items() if v}:
            out[session_id] = kept
    return out
