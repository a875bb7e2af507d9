"""The conformance suite and `trace check` side by side (issue 49: "`trace check` on each
reports exactly the violations the conformance suite reports for the same program (same ids),
and nothing on our own starters"; recordings "round-trip: replaying the recorded bytes
reproduces them exactly").

Each program below is run once under the suite, with the cases a recording can judge (the
suite's `--only` is passive.json's `suiteCases`: the rule data, not a list here), the agent
behind `trace record` as an editor would start it and a `tee` on each side of it
(tests/trace/side_by_side.py). Then:

- `trace check` on the recordings fails exactly the case ids the suite failed, and so does
  `trace check` on the suite's own `--trace` files (what a user checks of a suite run); where
  the data says a recording shows a case only in part (`suiteCasesInPart`: the suite also fails
  what did not happen within its deadline), the check fails it only where the suite does;
- our starters (Python, TypeScript, Go; v1 and v2) break nothing at all, not even a rule only
  a recording judges;
- every recording of an agent that exited on its own gives back, byte for byte, what the agent
  read and wrote (the `tee`s' files).

The programs: our starters in three languages, the official TypeScript SDK's agents (v1 and
v2, tests/interop/node), the official Python SDK's example agent (0.12.1, built as the
conformance field's row: `make test` builds it; it goes silent on a batch and exits once its
input is closed), broken fixtures of tests/conformance/broken, one per kind of rule
(an answered notification, an ignored cancel, requests dropped at the end of the input, v2 work
never idle, an update after a close answer), and one that breaks nothing though the two once
disagreed on it (a title after the prompt's answer: the session's update, not the turn's). The
suite runs go `POOL` at a time.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from acp_protocol.trace.check_cli import judge
from acp_protocol.trace.check_rules import suite_case_globs
from acp_protocol.trace.frames import replayed
from acp_protocol.trace.imports import Source

from tests.conformance.forkserver import forked_agent
from tests.conformance.suite import Run, run_suite
from tests.starters.builds import OFFICIAL_AGENTS, TS_BUILD, Starters, build_python
from tests.trace.side_by_side import (
    Taps,
    disagreement,
    exited,
    suite_failed,
    tapped,
    violations,
)
from tools.conformance_field.builds import BuildError
from tools.conformance_field.third_party import official_python

POOL = 2
OURS = ("python-v1", "python-v2", "typescript-v2", "go-v1")
OFFICIAL = ("official-ts-v1", "official-ts-v2", "official-python")
BROKEN = (
    "answers_notifications",
    "ignores_cancel",
    "drops_answers_at_eof",
    "v2_no_idle_after_work",
    "v2_update_after_close",
)
SOUND = ("title_after_answer",)
"""Fixtures of tests/conformance/broken that break nothing where the two once disagreed."""
PROGRAMS = (*OURS, *OFFICIAL, *BROKEN, *SOUND)


def edition(program: str) -> str:
    return "v2" if program.endswith("-v2") or program.startswith("v2_") else "v1"


@dataclass(frozen=True)
class Ran:
    run: Run
    taps: Taps
    traces: Path
    """The suite's `--trace` folder."""
    seconds: float


def _command(program: str, starters: Callable[[], Starters], scratch: Path) -> list[str]:
    """The program's command line, or a skip saying what it needs."""
    if program in BROKEN or program in SOUND:
        return forked_agent(program)
    if program == "official-python":
        try:
            return list(official_python("agent.py")().command)
        except BuildError as error:
            pytest.skip(f"{error} (`make test` builds it)")
    if program.startswith("official-ts-"):
        if (
            shutil.which("node") is None
            or not (OFFICIAL_AGENTS["v1"].parent / "node_modules").exists()
        ):
            pytest.skip("the official TypeScript SDK is not installed (tests/interop/node: npm ci)")
        return ["node", str(OFFICIAL_AGENTS[edition(program)])]
    lang = program.split("-")[0]
    if lang == "python":
        return list(build_python(scratch)["python", edition(program), "agent"].command)
    for tool in ("node", "go"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (the session's starters need node and go)")
    if not (TS_BUILD / "node_modules").exists():
        pytest.skip("run `make ts-build`")
    return list(starters()[lang, edition(program), "agent"].command)


def _run(program: str, command: list[str], folder: Path) -> Ran:
    taps = folder / "taps"
    taps.mkdir(parents=True)
    only = ",".join(g for g in suite_case_globs() if not g.startswith("client."))
    began = time.monotonic()
    run = run_suite(
        tapped(command, taps),
        "--protocol",
        edition(program),
        "--only",
        only,
        trace=folder / "trace",
    )
    return Ran(run, Taps(taps), folder / "trace", time.monotonic() - began)


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Ran]]]:
    """One suite run per program a selected test reads, `POOL` at a time."""
    wanted = set()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "module", None) is sys.modules[__name__] and callspec is not None:
            wanted.add(callspec.params["program"])
    with ThreadPoolExecutor(max_workers=POOL) as pool:
        futures: dict[str, Future[Ran]] = {}
        for program in sorted(wanted):
            folder = tmp_path_factory.mktemp(program)
            try:
                command = _command(program, lambda: request.getfixturevalue("starters"), folder)
            except pytest.skip.Exception as skipped:
                failed: Future[Ran] = Future()
                failed.set_exception(skipped)
                futures[program] = failed
                continue
            futures[program] = pool.submit(_run, program, command, folder)
        yield futures


@pytest.mark.parametrize("program", PROGRAMS)
def test_trace_check_fails_the_cases_the_suite_fails(
    program: str, runs: dict[str, Future[Ran]]
) -> None:
    ran = runs[program].result()
    run = ran.run
    assert run.traces, run.stderr
    failed = suite_failed(run)
    assert failed == run.ids("fail")  # every case run is one a recording judges
    recordings = list(ran.taps.recordings())
    assert len(recordings) >= 5
    began = time.monotonic()
    found = [v for path in recordings for v in violations(path) if v.side == "agent"]
    checked = time.monotonic() - began
    # What the suite wrote (`--trace DIR`) is judged the same, case trace by case trace.
    cases = sorted(ran.traces.glob("*.json"))
    traced = [v for path in cases for v in judge(Source(path))[0]]
    for source, violated in (("recordings", found), ("--trace", traced)):
        assert disagreement({v.case for v in violated}, failed) == [], source
    if program in OURS or program in SOUND:
        assert found == traced == [] and run.status == 0
    elif program in BROKEN:
        assert failed  # each fixture's bug is one a recording shows
    print(f"\n{program}: suite {ran.seconds:.1f} s, check {checked:.2f} s, failed {sorted(failed)}")


@pytest.mark.parametrize("program", PROGRAMS)
def test_a_recording_replays_the_bytes_that_passed(
    program: str, runs: dict[str, Future[Ran]]
) -> None:
    """What a recording holds is exactly what passed. An agent the suite ended (its process
    group killed after 0.3 s) may have lost its last bytes in a pipe on either side of the
    recorder: what is there is exact, the one a beginning of the other."""
    ran = runs[program].result()
    for path in ran.taps.recordings():
        assert_replays(path, ran.taps.wire(path), exited(path))


def test_a_conversation_an_editor_ends_replays_exactly(tmp_path: Path) -> None:
    """Our starter client and agent (v1, a turn that asks permission): the client closes the
    agent's input, the agent exits on its own, and the recording gives back every byte."""
    starters = build_python(tmp_path / "starters")
    agent = list(starters["python", "v1", "agent"].command)
    client = list(starters["python", "v1", "client"].command)
    taps = tmp_path / "taps"
    taps.mkdir()
    prompt = ["--approve-all", "--prompt", "ask to write out.txt", "--"]
    done = subprocess.run(
        [*client, *prompt, *tapped(agent, taps)], capture_output=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    (recording,) = Taps(taps).recordings()
    assert exited(recording)
    assert_replays(recording, Taps(taps).wire(recording), True)
    assert b"session/request_permission" in replayed(recording)["received"]


def assert_replays(recording: Path, wire: dict[str, bytes], whole: bool) -> None:
    recorded = replayed(recording)
    for direction in ("sent", "received"):
        if whole:
            assert recorded[direction] == wire[direction], (recording.name, direction)
        else:
            shorter = min(len(recorded[direction]), len(wire[direction]))
            assert recorded[direction][:shorter] == wire[direction][:shorter], recording.name
