"""docs/field.md is made by a command (`python -m tools.field_report`) from the field's results
and recordings: the table says per agent, version, edition and client which steps held (✓), failed
(✗) or did not run (a dash), each mark linking to a recording; each agent's section lists what its
messages hold beyond the negotiated edition's pinned schema. Checked on a recording made here by
hand, and on the committed recordings (the page is what they make, like `make check`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.field.registry import AGENTS
from tools.field_report.__main__ import PAGE, RESULTS, made, main
from tools.field_report.report import NONE

PAGE_TEMPLATE = """# The field

<!-- field-table:start -->
<!-- field-table:end -->

## Beyond the schema

<!-- field-beyond:start -->
<!-- field-beyond:end -->
"""


def frame(direction: str, message: Any) -> dict[str, Any]:
    return {"t": 0.1, "dir": direction, "json": message}


def v2_recording() -> list[dict[str, Any]]:
    """An agent asked for protocolVersion 2 that answers it with a v1-shaped body, then shows a
    removed member, an extension notification and an update type no edition has."""
    update = {"sessionUpdate": "mood_swing", "mood": "cheerful"}
    return [
        {"acpTrace": 1, "program": ["agent"], "started": "2026-12-02T00:00:00Z"},
        frame("sent", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": 2, "clientCapabilities": {}}}),
        frame("received", {"jsonrpc": "2.0", "id": 0,
                           "result": {"protocolVersion": 2, "authMethods": [],
                                      "agentCapabilities": {"loadSession": False}}}),
        frame("sent", {"jsonrpc": "2.0", "id": 1, "method": "session/new",
                       "params": {"cwd": "/tmp", "mcpServers": []}}),
        frame("received", {"jsonrpc": "2.0", "method": "_auth/status_update",
                           "params": {"authStatus": {"kind": "api_key"}}}),
        frame("received", {"jsonrpc": "2.0", "id": 1,
                           "result": {"sessionId": "s1", "models": {"currentModelId": "m"}}}),
        frame("received", {"jsonrpc": "2.0", "method": "session/update",
                           "params": {"sessionId": "s1", "update": update}}),
        {"t": 0.2, "stderr": "bye"},
        {"t": 0.3, "exit": 0},
    ]  # fmt: skip


def entry(test: str, steps: list[str], outcome: str, recording: str) -> dict[str, Any]:
    return {
        "test": test,
        "agent": "made-up-agent",
        "version": "9.9.9",
        "edition": "v2",
        "client": "python",
        "params": {"lang": "python", "protocol": "v2"},
        "steps": steps,
        "outcome": outcome,
        "recording": recording,
        "seconds": 1.5,
    }


@pytest.fixture
def page(tmp_path: Path) -> Path:
    recordings = tmp_path / "tests" / "field" / "recordings"
    recordings.mkdir(parents=True)
    lines = [json.dumps(f) for f in v2_recording()]
    (recordings / "a.turn.jsonl").write_text("\n".join(lines) + "\n")
    results = [
        entry("t.py::turn[python-v2]", ["words", "read"], "passed", "a.turn.jsonl"),
        entry("t.py::cancel[python-v2]", ["cancel"], "failed", ""),
    ]
    (recordings / "results.json").write_text(json.dumps(results))
    page = tmp_path / "docs" / "field.md"
    page.parent.mkdir()
    page.write_text(PAGE_TEMPLATE)
    return page


def rows_of(text: str, header: str) -> list[list[str]]:
    """The cells of the markdown table whose header row starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


def test_the_table_marks_each_step_with_its_outcome_and_recording(page: Path) -> None:
    results = page.parent.parent / "tests" / "field" / "recordings" / "results.json"
    text = made(page.read_text(), results, page)
    ((agent, version, edition, client, *marks),) = rows_of(text, "| agent |")
    assert (agent, version, edition, client) == ("made-up-agent", "9.9.9", "v2", "python")
    link = "(../tests/field/recordings/a.turn.jsonl)"
    assert marks[:2] == [f"[✓]{link}", f"[✓]{link}"]  # words, read
    assert marks[4] == "✗"  # cancel failed, and left no recording
    assert marks[2] == marks[3] == marks[5] == NONE  # never ran
    assert "2 tests, 1 recordings, 3 s of tests" in text


def test_the_section_lists_what_the_agent_sends_beyond_the_pinned_schema(page: Path) -> None:
    results = page.parent.parent / "tests" / "field" / "recordings" / "results.json"
    text = made(page.read_text(), results, page)
    section = text.split("### made-up-agent 9.9.9", 1)[1]
    rows = {(r[0], r[1], r[2]): r for r in rows_of(section, "| what |")}
    # The v1 body under protocolVersion 2: the v1 schema takes the whole answer.
    assert ("a v1 body under protocolVersion 2", "`initialize` answer", NONE) in rows
    member = rows["unknown member", "`initialize` answer", "`/result/agentCapabilities`"]
    assert member[4] == "v1"  # known to the v1 schema: a v1 member
    models = rows["unknown member", "`session/new` answer", "`/result/models`"]
    assert models[4] == NONE and models[5] == '`{"currentModelId": "m"}`'
    method = rows["unknown method", "`_auth/status_update` notification", "`_auth/status_update`"]
    assert method[6] == "1" and method[7] == "[python v2](../tests/field/recordings/a.turn.jsonl)"
    variant = rows[
        "unknown variant", "`session/update` notification", "`/params/update/sessionUpdate`"
    ]
    assert variant[5] == '`"mood_swing"`'
    missing = ("required member missing", "`initialize` answer", "`/result/info`")
    assert missing in rows  # the v2 answer's `info`, absent from the v1 body


def test_the_report_is_the_same_from_the_same_recordings(page: Path) -> None:
    results = page.parent.parent / "tests" / "field" / "recordings" / "results.json"
    assert main(["--results", str(results), "--page", str(page)]) == 0
    once = page.read_text()
    assert main(["--results", str(results), "--page", str(page), "--check"]) == 0
    assert made(once, results, page) == once


def test_a_page_without_its_markers_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "field.md"
    page.write_text("# nothing to rewrite\n")
    assert main(["--page", str(page), "--results", str(tmp_path / "none.json")]) == 2


def test_docs_field_md_is_what_the_committed_recordings_make() -> None:
    assert (
        main(["--check", "--results", str(RESULTS), "--page", str(PAGE)]) == 0
    ), "docs/field.md is stale: run `python -m tools.field_report` (or `make field`)"


@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a.name)
def test_the_registry_names_the_version_each_lock_pins(agent: Any) -> None:
    locked = agent.locked_version()
    if locked is None:
        pytest.skip(f"{agent.name}: no lock under {agent.lock} yet")
    assert locked == agent.version
