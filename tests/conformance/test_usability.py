"""Using the suite (issue 46, usability): a line per case as it finishes, `--fail-fast`, a run
whose `initialize` is never answered with its id stopped at once saying what came back, and a
case whose earlier step failed reported not judged instead of failing its own rule."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conformance.suite import TEST_TIMEOUT, broken_agent, run_suite
from tests.paths import ROOT

STATUSES = ("PASS", "FAIL", "SKIP")


def listed(*options: str) -> list[str]:
    """The ids `--list` selects."""
    run = run_suite([], "--list", *options)
    assert run.status == 0, run.stderr
    return [line.split()[1] for line in run.stdout.splitlines()]


def test_each_case_is_told_on_stderr_as_it_finishes_and_the_report_keeps_case_order() -> None:
    argv = [sys.executable, "-m", "acp_protocol.conformance", "agent", "--protocol", "v1"]
    argv += ["--only", "negotiation.*,capabilities.*", "--jobs", "1"]
    argv += ["--timeout", str(TEST_TIMEOUT), "--", *broken_agent("no_bug")]
    began = time.monotonic()
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stderr is not None
    told: list[tuple[float, str]] = []
    for raw in process.stderr:
        line = raw.decode()
        if line.startswith(STATUSES):
            told.append((time.monotonic() - began, line.split()[2]))
    stdout, _ = process.communicate(timeout=300)
    ended = time.monotonic() - began
    ids = listed("--protocol", "v1", "--only", "negotiation.*,capabilities.*")
    assert sorted(case_id for _, case_id in told) == sorted(ids)
    # The first case was told while the others still ran (one at a time: a program each).
    assert told[0][0] < ended - 1.0, (told[0], ended)
    reported = [
        line.split()[2] for line in stdout.decode().splitlines() if line.startswith(STATUSES)
    ]
    assert reported == ids  # the report on stdout: the cases' order


def test_fail_fast_stops_at_the_first_must_failure(tmp_path: Path) -> None:
    only = "notifications.*"  # each answered: "The Server MUST NOT reply to a Notification"
    run = run_suite(
        broken_agent("answers_notifications"),
        "--protocol",
        "v1",
        "--only",
        only,
        "--jobs",
        "1",
        "--fail-fast",
        trace=tmp_path,
    )
    assert run.status == 1
    ids = listed("--protocol", "v1", "--only", only)
    failing = ids[0]  # one case at a time, in order
    assert run.ids("fail", "MUST") == set(run.traces) == {failing}
    not_run = len(ids) - 1
    assert not_run > 0
    assert f"stopped: --fail-fast: {failing} failed, a MUST case; {not_run} cases not run" in (
        run.stdout
    )


def test_without_fail_fast_every_case_runs(tmp_path: Path) -> None:
    only = "notifications.*"
    run = run_suite(
        broken_agent("answers_notifications"), "--protocol", "v1", "--only", only, trace=tmp_path
    )
    assert (
        run.ids("fail", "MUST")
        == set(run.traces)
        == set(listed("--protocol", "v1", "--only", only))
    )
    assert "stopped" not in run.stdout


def test_initialize_answered_with_another_id_stops_the_run_at_once(tmp_path: Path) -> None:
    run = run_suite(
        broken_agent("initialize_answered_with_another_id"),
        "--protocol",
        "v1",
        "--html",
        str(tmp_path / "report.html"),
        trace=tmp_path,
        timeout=120,
    )
    assert run.status == 1, run.stdout + run.stderr  # JSON-RPC 2.0's MUST on the response id
    assert run.seconds < 60, run.seconds  # not a deadline per case
    told = '(id 1) was answered with id 1001: {"jsonrpc": "2.0", "id": 1001, "result"'
    assert told in run.stdout
    every = len(listed("--protocol", "v1"))
    assert run.traces and len(run.traces) < every
    assert f"{every - len(run.traces)} cases not run" in run.stdout
    assert run.ids("fail") == set()  # no case is blamed for a rule it never reached
    stopped = [t for t in run.traces.values() if t["reason"].startswith("not judged: ")]
    assert stopped[0]["reason"].startswith("not judged: initialize (id 1) was answered with id")
    assert "does not conform" in run.stdout.splitlines()[-1]
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "cases not run" in page and "does not conform" in page


def test_protocol_auto_says_what_initialize_was_answered() -> None:
    """Without `--protocol` the suite asks the agent's version first: an answer with another id
    means no edition can be chosen (exit 2), said at once with what came back."""
    answer = '{"jsonrpc": "2.0", "id": 7, "result": {"protocolVersion": 1}}'
    script = (
        f"import sys, time; sys.stdin.readline(); print({answer!r}, flush=True); time.sleep(60)"
    )
    run = run_suite([sys.executable, "-c", script], timeout=120)
    assert run.status == 2
    assert run.seconds < 30, run.seconds
    (line,) = run.stderr.splitlines()
    assert f'initialize (id "protocol") was answered: {answer}' in line and "--protocol" in line


def test_initialize_never_answered_says_what_came_back(tmp_path: Path) -> None:
    """A program that only writes a log line and never answers: the run stops after one
    timeout, quoting the line."""
    script = "import sys, time; print('agent starting...', flush=True); time.sleep(60)"
    run = run_suite(
        [sys.executable, "-c", script],
        "--protocol",
        "v1",
        "--timeout",
        "2",
        "--only",
        "negotiation.*,capabilities.*",
        trace=tmp_path,
        timeout=120,
    )
    assert run.status == 1
    assert run.seconds < 50, run.seconds  # one wait (the start allowance), not one per case
    assert "initialize (id 1) was never answered: no answer to initialize within" in run.stdout
    assert "it wrote 1 line: agent starting..." in run.stdout


def test_a_case_whose_session_new_failed_is_not_judged(tmp_path: Path) -> None:
    run = run_suite(
        broken_agent("session_new_fails"),
        "--protocol",
        "v1",
        "--only",
        "eof.*,negotiation.answers_at_most_the_version_asked",
        trace=tmp_path,
    )
    prompts = {i: t for i, t in run.traces.items() if i.startswith("eof.")}
    assert prompts
    for trace in prompts.values():
        assert trace["outcome"] == "skip"
        assert trace["reason"].startswith(
            "not judged: session/new was answered with error -32603 'no sessions today'"
        )
    assert run.ids("pass") == {"negotiation.answers_at_most_the_version_asked"}
    assert f"{len(prompts)} of the skipped cases not judged" in run.stdout
    assert run.status == 0
