# Copied by acp-codegen from templates/python/conformance/report.py. Do not edit here:
# edit the source, then run `make generate`.

"""Reports (layer: report): one line per case on stderr as it finishes (under a progress line
on a terminal), the report on stdout in the cases' order with a summary by level, JUnit XML
(`--junit FILE`) and one JSON trace per case (`--trace DIR`).

A trace file (docs/conformance.md) holds: caseId, title, level, requires, quote {text, source},
outcome (pass, fail, skip), reason, details (every finding behind the reason), seconds,
afterCases (the cases that ran before it on the same program: shared cases), frames [{t, dir:
"sent" | "received", json | raw}] and the end of the program's stderr written during the case.

JUnit marks only MUST failures `<failure>` (what makes the exit status 1); a SHOULD or
informative failure is a passing `testcase` with the properties `outcome=fail` and `level`, and
its reason in `<system-out>`.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .cases import LEVELS, NOT_JUDGED
from .runner import Result
from .stopping import Stop

SHOWN_FRAMES = 12
"""Frames printed under a failed case (the last ones; the trace has them all)."""
FRAME_WIDTH = 160


class Progress:
    """A line on stderr per case as it finishes; on a terminal, under them, a progress line
    rewritten as cases finish."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total = total
        self.counts = {"pass": 0, "fail": 0, "skip": 0}
        self.stream = stream
        self.live = stream.isatty()

    def __call__(self, result: Result) -> None:
        self.counts[result.outcome.status] += 1
        if self.live:
            self.stream.write("\r\x1b[K")
        self.stream.write(case_lines(result, verbose=False)[0] + "\n")
        if self.live:
            done = sum(self.counts.values())
            c = self.counts
            line = (
                f"[{done}/{self.total}] {c['pass']} passed, {c['fail']} failed, {c['skip']} skipped"
            )
            self.stream.write(line)
        self.stream.flush()

    def end(self) -> None:
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def frame_line(frame: dict[str, Any]) -> str:
    arrow = "→" if frame["dir"] == "sent" else "←"
    body = json.dumps(frame["json"], ensure_ascii=False) if "json" in frame else frame["raw"]
    if len(body) > FRAME_WIDTH:
        body = body[: FRAME_WIDTH - 1] + "…"
    return f"{frame['t']:8.3f} {arrow} {body}"


def case_lines(result: Result, verbose: bool) -> list[str]:
    outcome = result.outcome
    case = result.case
    head = f"{outcome.status.upper():4}  {case.level:11}  {case.id}"
    lines = [head + (f"  {outcome.reason}" if outcome.reason else "")]
    if outcome.status == "fail" or verbose:
        lines.append(f"      {case.title}")
        lines.append(f'      quote: "{case.quote.text}" ({case.quote.source})')
    if outcome.status == "fail":
        frames = [f.to_json() for f in result.frames]
        shown = frames[-SHOWN_FRAMES:]
        if len(frames) > len(shown):
            lines.append(f"      frames (the last {len(shown)} of {len(frames)}):")
        else:
            lines.append("      frames:")
        lines += ["        " + frame_line(f) for f in shown]
    return lines


def summary(
    results: Sequence[Result], seconds: float, stop: Stop | None = None, total: int | None = None
) -> list[str]:
    """Counts by level, the cases not judged, why the run stopped, and the verdict (last)."""
    lines = []
    for level in LEVELS:
        of_level = [r for r in results if r.case.level == level]
        counts = {
            s: sum(1 for r in of_level if r.outcome.status == s) for s in ("pass", "fail", "skip")
        }
        lines.append(
            f"{level:11}  {counts['pass']} passed, {counts['fail']} failed, "
            f"{counts['skip']} skipped"
        )
    not_judged = sum(1 for r in results if r.outcome.reason.startswith(NOT_JUDGED))
    if not_judged:
        lines.append(
            f"{not_judged} of the skipped cases not judged: a step before their own rule failed"
        )
    if stop is not None and stop.reason:
        not_run = (len(results) if total is None else total) - len(results)
        lines.append(f"stopped: {stop.reason}; {not_run} cases not run")
    must_failed = sum(1 for r in results if r.case.level == "MUST" and r.outcome.status == "fail")
    if stop is not None and stop.must:
        verdict = "does not conform: the run stopped on a MUST rule"
    elif must_failed:
        verdict = f"{must_failed} MUST cases failed"
    else:
        verdict = "conforms: no MUST case failed"
    lines.append(f"{len(results)} cases in {seconds:.1f} s: {verdict}")
    return lines


def print_report(
    results: Sequence[Result],
    seconds: float,
    verbose: bool,
    stream: TextIO = sys.stdout,
    stop: Stop | None = None,
    total: int | None = None,
) -> None:
    for result in results:
        for line in case_lines(result, verbose):
            print(line, file=stream)
    print(file=stream)
    for line in summary(results, seconds, stop, total):
        print(line, file=stream)


def trace(result: Result, protocol: str, command: Sequence[str]) -> dict[str, Any]:
    case = result.case
    return {
        "caseId": case.id,
        "title": case.title,
        "level": case.level,
        "requires": list(case.requires),
        "quote": {"text": case.quote.text, "source": case.quote.source},
        "protocol": protocol,
        "program": list(command),
        "outcome": result.outcome.status,
        "reason": result.outcome.reason,
        "details": list(result.outcome.details),
        "seconds": round(result.seconds, 3),
        "afterCases": list(result.after),
        "frames": [f.to_json() for f in result.frames],
        "stderr": result.stderr,
        "exit": result.exit,
    }


def trace_name(case_id: str) -> str:
    """A case id as a file name: every character but letters, digits, `.`, `-`, `_` as `_`."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", case_id) + ".json"


def write_traces(
    directory: Path, results: Sequence[Result], protocol: str, command: Sequence[str]
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for result in results:
        text = json.dumps(trace(result, protocol, command), indent=1, ensure_ascii=False)
        (directory / trace_name(result.case.id)).write_text(text + "\n", encoding="utf-8")


def junit(results: Sequence[Result], seconds: float, protocol: str) -> ElementTree.ElementTree:
    """One `testcase` per case: a MUST failure is a `<failure>` (type MUST), a skip `<skipped>`;
    a SHOULD or informative failure passes, with `outcome=fail` and `level` properties and its
    reason in `<system-out>` (the dashboard agrees with the exit status)."""
    failures = sum(1 for r in results if must_failure(r))
    skips = sum(1 for r in results if r.outcome.status == "skip")
    suites = ElementTree.Element("testsuites")
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name=f"acp-conformance ({protocol})",
        tests=str(len(results)),
        failures=str(failures),
        errors="0",
        skipped=str(skips),
        time=f"{seconds:.3f}",
    )
    for result in results:
        case = result.case
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"acp-conformance.{case.family}",
            name=f"{case.id} [{case.level}]",
            time=f"{result.seconds:.3f}",
        )
        properties = ElementTree.SubElement(element, "properties")
        for name, value in (("outcome", result.outcome.status), ("level", case.level)):
            ElementTree.SubElement(properties, "property", name=name, value=value)
        details = "\n".join(case_lines(result, verbose=True)[1:] + list(result.outcome.details))
        if must_failure(result):
            failure = ElementTree.SubElement(
                element, "failure", message=result.outcome.reason, type=case.level
            )
            failure.text = details
        elif result.outcome.status == "fail":
            ElementTree.SubElement(element, "system-out").text = (
                f"{case.level} failure (not a MUST: the exit status does not count it): "
                f"{result.outcome.reason}\n{details}"
            )
        elif result.outcome.status == "skip":
            ElementTree.SubElement(element, "skipped", message=result.outcome.reason)
    ElementTree.indent(suites)
    return ElementTree.ElementTree(suites)


def must_failure(result: Result) -> bool:
    return result.case.level == "MUST" and result.outcome.status == "fail"
