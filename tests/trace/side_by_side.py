"""The conformance suite and `trace check` on the same conversations (layer: test tooling).

`tapped(command, folder)` is the agent command the suite starts instead of `command`: `trace
record` in front of it, as an editor would start it, and `tee` on each side of the agent, so
that what the agent really read and wrote is kept apart from the recording
(`folder/PID.jsonl`, `PID.in`, `PID.out`, one set per agent process the suite starts).
What the recording says passed is `acp_protocol.trace.frames.replayed(recording)`.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_protocol.trace.check import check_recording
from acp_protocol.trace.check_messages import Violation
from acp_protocol.trace.check_rules import judged_by_a_recording, judged_in_part
from acp_protocol.trace.imports import load

from tests.conformance.suite import Run


def tapped(command: Sequence[str], folder: Path) -> list[str]:
    """`command` behind `trace record` and two `tee`s, each process's files named by its pid."""
    agent = " ".join(shlex.quote(word) for word in command)
    tee = f'tee "$0.in" | {agent} | tee "$0.out"'
    recorder = (
        f"exec {shlex.quote(sys.executable)} -m acp_protocol.trace record"
        f' --out "$0/$$.jsonl" -- sh -c {shlex.quote(tee)} "$0/$$"'
    )
    return ["sh", "-c", recorder, str(folder)]


@dataclass(frozen=True)
class Taps:
    """The recordings of one suite run, and what each agent process really read and wrote."""

    folder: Path

    def recordings(self) -> Iterator[Path]:
        return iter(sorted(self.folder.glob("*.jsonl")))

    def wire(self, recording: Path) -> dict[str, bytes]:
        """What the agent read and wrote (nothing where the suite ended the process group
        before its `tee` started)."""
        stem = recording.with_suffix("")
        read, wrote = stem.with_suffix(".in"), stem.with_suffix(".out")
        return {
            "sent": read.read_bytes() if read.exists() else b"",
            "received": wrote.read_bytes() if wrote.exists() else b"",
        }


def exited(recording: Path) -> bool:
    """Whether the recording ends with the agent's exit (it was not killed with the recorder)."""
    last = recording.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return b'"exit":' in last


def violations(recording: Path) -> list[Violation]:
    loaded = load(recording)
    return check_recording(loaded.frames, loaded.exit_status, loaded.input_closed)


def suite_failed(run: Run) -> set[str]:
    """The cases the suite failed that a recording can judge (passive.json's `suiteCases`)."""
    return {case for case in run.ids("fail") if judged_by_a_recording(case)}


def disagreement(found: set[str], failed: set[str]) -> list[str]:
    """Where `trace check` (the case ids of `found`) and the suite (`failed`, the same run)
    disagree, one line per case: a case a recording shows whole fails in both or in neither; a
    case it shows in part (passive.json's `suiteCasesInPart`: the suite also fails what did not
    happen within its deadline) fails in the check only where the suite fails it."""
    found = {case for case in found if judged_by_a_recording(case)}
    lines = []
    for case in sorted(found | failed):
        check, suite = case in found, case in failed
        if check == suite or (judged_in_part(case) is not None and suite):
            continue
        said = {True: "fails", False: "passes"}
        part = " (shown in part)" if judged_in_part(case) is not None else ""
        lines.append(f"{case}{part}: trace check {said[check]} it, the suite {said[suite]} it")
    return lines
