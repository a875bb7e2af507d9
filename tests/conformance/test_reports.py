"""What the suite writes: a JUnit file CI tools read, one trace per case in the documented
format (docs/conformance.md), one HTML page a person opens (every case, escaped), and its exit
status: 0 unless a MUST case failed, 1 when one did,
2 (one line, no traceback) when the suite itself cannot run."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

from acp_protocol.conformance.cases import Case, Context, Outcome
from acp_protocol.conformance.data import Quote
from acp_protocol.conformance.page import html_page
from acp_protocol.conformance.peer import Frame
from acp_protocol.conformance.runner import Program, Result, Settings, load_edition

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
    "details",
    "seconds",
    "afterCases",
    "frames",
    "stderr",
    "exit",
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
    assert run.status == (1 if run.ids("fail", "MUST") else 0)
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert int(suite.get("tests", "")) == len(cases) == len(run.traces) == 11
    assert [c.get("name") for c in cases if c.find("failure") is not None] == [
        f"{i} [MUST]" for i in sorted(run.ids("fail", "MUST"))
    ]
    assert int(suite.get("failures", "")) == len(run.ids("fail", "MUST"))
    failed_case = next(c for c in cases if c.get("name", "").startswith("capabilities.advertised"))
    properties = {p.get("name"): p.get("value") for p in failed_case.iter("property")}
    level = run.traces["capabilities.advertised_is_served.session/list"]["level"]
    assert properties == {"outcome": "fail", "level": level}
    told = failed_case.find("failure" if level == "MUST" else "system-out")
    assert told is not None and "-32601" in (told.get("message") or told.text or "")
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
    # A case on an agent of its own ends with it: its exit status (0: it exited at the end of
    # its input; -9: the suite ended it); the envelope cases share one, which runs on.
    assert run.traces["capabilities.advertised_is_served.session/list"]["exit"] in (0, -9)
    assert (
        run.traces["envelope.request_with_id_zero_is_answered_with_that_exact_id"]["exit"] is None
    )
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


def test_failures_below_must_exit_0(tmp_path: Path) -> None:
    """`prompt.updates_before_the_answer` is informative (its quote is the suite's own rule)."""
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
    assert "informative  1 passed, 1 failed" in run.stdout


def test_junit_marks_only_must_failures_as_failures(tmp_path: Path) -> None:
    """A failure below MUST (here informative) is a passing testcase with `outcome=fail` and its
    `level` as properties: the dashboard agrees with the exit status (0)."""
    junit = tmp_path / "report.xml"
    run = run_suite(
        broken_agent("update_after_answer"),
        "--protocol",
        "v1",
        "--only",
        "prompt.updates_before_the_answer",
        "--junit",
        str(junit),
        trace=tmp_path / "trace",
    )
    failed = run.ids("fail", "informative")
    assert run.status == 0 and failed == {"prompt.updates_before_the_answer"}
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    (case,) = suite.findall("testcase")
    assert case.find("failure") is None and case.find("skipped") is None
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties == {"outcome": "fail", "level": "informative"}
    said = case.find("system-out")
    assert said is not None and run.traces["prompt.updates_before_the_answer"]["reason"] in (
        said.text or ""
    )


def test_the_trace_carries_every_fuzz_deviation(tmp_path: Path) -> None:
    """The reason names the first three deviations; the trace's `details` and the page hold
    all of them."""
    page_file = tmp_path / "report.html"
    run = run_suite(
        broken_agent("answers_notifications"),
        "--protocol",
        "v1",
        "--only",
        "fuzz.must",
        "--html",
        str(page_file),
        trace=tmp_path / "trace",
    )
    trace = run.traces["fuzz.must"]
    assert trace["outcome"] == "fail"
    count = int(trace["reason"].split(" deviations: ")[0].rsplit(" ", 1)[1])
    assert count > 3 and len(trace["details"]) == count
    shown = trace["reason"].split(" deviations: ", 1)[1]
    assert shown == "; ".join(trace["details"][:3])
    page = Page(page_file.read_text(encoding="utf-8"))
    assert all(detail in page.text for detail in trace["details"])


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


class Page(HTMLParser):
    """What a browser would see of the page: its elements (tag, attributes) in order, its text,
    the text of each `<pre>`, each `<details>` case's id and class, the text inside `<script>`."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.open: list[str] = []
        self.pre: list[str] = []
        self.scripts: list[str] = []
        self.text = ""
        self.feed(text)
        self.close()

    @property
    def cases(self) -> dict[str, str]:
        """caseId → the case's class (`case pass`, `case fail`, `case skip`)."""
        return {
            str(attrs["id"]): str(attrs["class"])
            for tag, attrs in self.elements
            if tag == "details"
        }

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag not in ("meta", "input", "br"):
            self.open.append(tag)
        if tag == "pre":
            self.pre.append("")
        if tag == "script":
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1:]}>"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text += data
        if "pre" in self.open:
            self.pre[-1] += data
        if "script" in self.open:
            self.scripts[-1] += data


def test_the_html_page_shows_every_case_and_the_failures_frames(tmp_path: Path) -> None:
    page_file = tmp_path / "report.html"
    run = run_suite(
        broken_agent("advertises_unserved"),
        "--protocol",
        "v1",
        "--only",
        "capabilities.*,prompt.*",
        "--html",
        str(page_file),
        trace=tmp_path / "trace",
    )
    must_failed = len(run.ids("fail", "MUST"))
    assert run.status == (1 if must_failed else 0)
    page = Page(page_file.read_text(encoding="utf-8"))
    assert page.open == []  # every element closed
    assert page.cases == {i: f"case {t['outcome']}" for i, t in run.traces.items()}
    assert len(page.cases) == 14  # 10 capabilities.* and 4 prompt.* cases of v1
    # Self-contained: nothing is fetched (no src, no href, no stylesheet link).
    assert not [a for _, attrs in page.elements for a in attrs if a in ("src", "href")]
    assert [tag for tag, _ in page.elements].count("script") == 1
    assert "broken.advertises_unserved" in page.text and "ACP v1" in page.text
    assert (f"{must_failed} MUST cases failed" if must_failed else "conforms") in page.text
    failed = run.traces["capabilities.advertised_is_served.session/list"]
    assert failed["quote"]["text"] in page.text and failed["reason"] in page.text
    frames = page.pre[0]  # the one failure's frames
    assert frames.count("→") == 2 and frames.count("←") == 2
    assert '"code": -32601' in frames


async def never_run(_: Context) -> Outcome:
    raise AssertionError("the page is made from a result; the case is never run")


def test_the_html_page_escapes_what_the_program_wrote() -> None:
    hostile = '</pre><script>alert("frame")</script><img src=x onerror=alert(1)>'
    case = Case(
        "envelope.hostile",
        "a <b>title</b>",
        "MUST",
        Quote("say <i>this</i> & that", "schema.json#/$defs/X"),
        check=never_run,
    )
    frames = [
        Frame(0.0, "sent", True, {"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
        Frame(0.1, "received", False, None, raw=hostile),
        Frame(0.2, "received", True, {"jsonrpc": "2.0", "id": 1, "result": {"x": hostile}}),
    ]
    result = Result(case, Outcome("fail", hostile), 0.2, frames, stderr=hostile)
    text = html_page(
        [result], 0.2, "v1", "schema.json", ["agent", hostile], datetime(2026, 1, 1, tzinfo=UTC)
    )
    page = Page(text)
    assert page.open == []
    assert [tag for tag, _ in page.elements].count("script") == 1
    assert not [tag for tag, _ in page.elements if tag in ("img", "b", "i")]
    assert page.cases == {"envelope.hostile": "case fail"}
    frames_text, stderr_text = page.pre
    assert hostile in frames_text.splitlines()[1]
    assert json.dumps(hostile)[1:-1] in frames_text.splitlines()[2]
    assert stderr_text == hostile
    assert "alert" not in page.scripts[0]


async def fails_at_once(_: Context) -> Outcome:
    return Outcome("fail", "the program exited")


def test_a_case_keeps_what_its_program_said_before_the_case_began(tmp_path: Path) -> None:
    """A program that prints its line and exits before the first case starts (a slow suite, a
    fast program) still has that line in the case's stderr."""
    said = "said while starting"
    settings = Settings(command=(sys.executable, "-c", f"import sys; sys.stderr.write({said!r})"))
    case = Case("negotiation.x", "x", "MUST", Quote("x", "schema.json#/$defs/X"), fails_at_once)

    async def run_after_exit() -> Result:
        program = await Program.start(load_edition("v1"), settings, str(tmp_path))
        try:
            while not program.peer.ended or not os.fstat(program.stderr.fileno()).st_size:
                await asyncio.sleep(0.01)
            return await program.run(case)
        finally:
            await program.close()
            program.stderr.close()

    assert asyncio.run(run_after_exit()).stderr == said
