"""What the suite writes: a JUnit file CI tools read, one trace per case in the documented
format (docs/conformance.md), and its exit status: 0 unless a MUST case failed, 1 when one did,
2 (one line, no traceback) when the suite itself cannot run."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from tests.conformance.suite import broken_agent, run_suite

TRACE_KEYS = {
    "caseId",
    "title",
    "level",
    "requires",
    "quote",
    "protocol",
    "program",
    "outcome",
    "reason",
    "seconds",
    "afterCases",
    "frames",
    "stderr",
}


def test_junit_and_traces_describe_every_case(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    run = run_suite(
        broken_agent("advertises_unserved"),
        "--protocol",
        "v1",
        "--only",
        "capabilities.*,envelope.request_with_id_zero*",
        "--junit",
        str(junit),
        trace=tmp_path / "trace",
    )
    assert run.status == 1  # a MUST case failed
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert int(suite.get("tests", "")) == len(cases) == len(run.traces) == 11
    failures = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == [
        "capabilities.advertised_is_served.session/list [MUST]"
    ]
    failure = failures[0].find("failure")
    assert failure is not None and failure.get("type") == "MUST"
    assert "-32601" in (failure.get("message") or "")
    assert int(suite.get("skipped", "")) == len([c for c in cases if c.find("skipped") is not None])

    files = sorted(p.name for p in (tmp_path / "trace").iterdir())
    assert "capabilities.advertised_is_served.session_list.json" in files
    for trace in run.traces.values():
        assert set(trace) == TRACE_KEYS
        assert trace["level"] in ("MUST", "SHOULD", "informative")
        assert trace["outcome"] in ("pass", "fail", "skip")
        assert set(trace["quote"]) == {"text", "source"} and trace["quote"]["text"]
        for frame in trace["frames"]:
            assert frame["dir"] in ("sent", "received") and isinstance(frame["t"], float)
            assert ("json" in frame) != ("raw" in frame)
    failed = run.traces["capabilities.advertised_is_served.session/list"]
    assert failed["requires"] == ["agentCapabilities.sessionCapabilities.list"]
    sent = [f["json"]["method"] for f in failed["frames"] if f["dir"] == "sent"]
    assert sent == ["initialize", "session/list"]
    answers = [f["json"] for f in failed["frames"] if f["dir"] == "received"]
    assert answers[-1]["error"]["code"] == -32601
    # A frame sent as bytes keeps its exact text.
    zero = run.traces["envelope.request_with_id_zero_is_answered_with_that_exact_id"]
    raw = [f["raw"] for f in zero["frames"] if "raw" in f]
    assert raw == ['{"jsonrpc":"2.0","id":0,"method":"_conformance/echo","params":{"x":1}}']


def test_only_should_failures_exit_0(tmp_path: Path) -> None:
    run = run_suite(
        broken_agent("update_after_answer"),
        "--protocol",
        "v1",
        "--only",
        "prompt.*",
        trace=tmp_path,
    )
    assert run.ids("fail") == {"prompt.updates_before_the_answer"}
    assert run.status == 0
    assert "SHOULD       0 passed, 1 failed" in run.stdout


def test_a_missing_agent_program_is_one_line_and_exit_2() -> None:
    run = run_suite(["no-such-agent-program", "--stdio"])
    assert run.status == 2
    assert run.stderr.splitlines() == [
        "python -m acp_protocol.conformance: no program 'no-such-agent-program' (not found on PATH)"
    ]
    assert run.stdout == ""


def test_a_bad_option_is_one_line_and_exit_2() -> None:
    run = run_suite([sys.executable, "agent.py"], "--protocol", "v9")
    assert run.status == 2
    assert len(run.stderr.splitlines()) == 1 and "--protocol" in run.stderr


def test_no_case_selected_is_one_line_and_exit_2() -> None:
    run = run_suite(broken_agent("no_bug"), "--protocol", "v1", "--only", "nothing.*")
    assert (run.status, run.stderr.strip()) == (
        2,
        "python -m acp_protocol.conformance: no case matches --only/--skip",
    )


def test_list_names_the_cases_with_their_levels() -> None:
    run = run_suite([], "--protocol", "v1", "--list", "--skip", "envelope.*")
    assert run.status == 0, run.stderr
    rows = [line.split(None, 2) for line in run.stdout.splitlines()]
    ids = [row[1] for row in rows]
    assert "negotiation.answers_at_most_the_version_asked" in ids
    assert "params.invalid.session/prompt" in ids
    assert not any(i.startswith("envelope.") for i in ids)
    assert {row[0] for row in rows} <= {"MUST", "SHOULD", "informative"}
    assert json.dumps(ids)  # plain text ids
