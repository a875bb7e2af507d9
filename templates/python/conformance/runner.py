"""Running cases (layer: runner): the edition's cases from its data, selection by id, a fresh
program per case, several cases at once, and a deadline per case.

A case that overruns its deadline fails with "no answer within X s" and keeps the frames
exchanged so far; the program's whole process group ends with the case (`Peer.close`).

Shared cases (the envelope family's: each a few frames after `initialize`, ended by a probe
whose answer shows the connection is clean again) run in turn on one program, a dozen at a time,
a fresh program after any case that does not pass, so that no failure reaches the next case.
Starting a program costs more than such a case (a Python agent: half a second of CPU), so this
makes the default suite several times faster; `--fresh` runs every case on a program of its own.
"""

from __future__ import annotations

import asyncio
import fnmatch
import importlib
import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from . import (
    auth,
    cancel_order,
    cancel_request,
    capabilities,
    content,
    envelope,
    frames,
    fuzz,
    half_close,
    lifecycle,
    mcp_servers,
    methods,
    modes,
    negotiation,
    output,
    params_where,
    prompt_permission,
    prompt_turn,
    sessions,
    unknown_fields,
)
from .cases import (
    NOT_JUDGED,
    Case,
    Context,
    Failure,
    NeverAnswered,
    NotJudged,
    Outcome,
    Skip,
    failed,
    skipped,
)
from .data import EditionData
from .first_answer import came_back, is_answer, shown
from .peer import EXIT_GRACE, START_ALLOWANCE, Frame, NoAnswer, Peer, Unsendable, same_id
from .steps import initialize_wire
from .stopping import Stop

FAMILIES = (
    negotiation,
    methods,
    capabilities,
    prompt_turn,
    prompt_permission,
    lifecycle,
    sessions,
    modes,
    content,
    mcp_servers,
    auth,
    unknown_fields,
    output,
    cancel_request,
    envelope,
    params_where,
    cancel_order,
    half_close,
    frames,
    fuzz,
)
"""The agent-side case families, in report order."""
STDERR_TAIL = 4096
"""Bytes of the program's stderr kept per case (the end of it)."""
PACKAGE = __name__.rsplit(".", 2)[0]
"""The generated package (`acp_protocol`, or the name it was vendored under)."""


class ToolError(Exception):
    """The suite itself cannot go on (no such program, no such edition): one line, exit 2."""


@dataclass(frozen=True, slots=True)
class Edition:
    """An edition's conformance data and models (`acp_protocol.<key>.conformance`)."""

    data: EditionData
    models: ModuleType


def editions() -> list[str]:
    """The keys of the editions this package carries (`v1`, `v1/unstable`, `v2`, …)."""
    root = Path(importlib.import_module(PACKAGE).__file__ or "").parent
    found = []
    for conformance in sorted(root.glob("v*/conformance.py")) + sorted(
        root.glob("v*/unstable/conformance.py")
    ):
        found.append(conformance.parent.relative_to(root).as_posix())
    return sorted(found)


def load_edition(key: str) -> Edition:
    if key not in editions():
        raise ToolError(f"no edition {key!r} in {PACKAGE} (it has {', '.join(editions())})")
    module = f"{PACKAGE}.{key.replace('/', '.')}"
    data = importlib.import_module(f"{module}.conformance").EDITION
    return Edition(data, importlib.import_module(f"{module}.models"))


def all_cases(edition: EditionData) -> list[Case]:
    return [case for family in FAMILIES for case in family.cases(edition)]


def select(cases: Sequence[Case], only: Sequence[str], skip: Sequence[str]) -> list[Case]:
    """The cases whose id matches one `only` glob (all when none is given) and no `skip` glob."""
    return [
        case
        for case in cases
        if (not only or any(fnmatch.fnmatchcase(case.id, g) for g in only))
        and not any(fnmatch.fnmatchcase(case.id, g) for g in skip)
    ]


def check_program(command: Sequence[str]) -> None:
    """ToolError unless `command[0]` names a program that can be run."""
    if not command:
        raise ToolError("no program to test: give it after `--`, e.g. `agent -- node agent.js`")
    program = command[0]
    path = shutil.which(program) if os.sep not in program else program
    if path is None or not os.path.isfile(path):
        raise ToolError(
            f"no program {program!r} (not found{' on PATH' if os.sep not in program else ''})"
        )
    if not os.access(path, os.X_OK):
        raise ToolError(f"{program!r} is not executable")


@dataclass
class Result:
    case: Case
    outcome: Outcome
    seconds: float
    frames: list[Frame] = field(default_factory=list)
    stderr: str = ""
    after: tuple[str, ...] = ()
    """The cases that ran before this one on the same program (shared cases only)."""
    stops: str = ""
    """Why the run stops after this case (`initialize` never answered with its id), or ""."""
    exit: int | None = None
    """The program's exit status when it ended with the case (negative: the signal the suite
    ended it with); None when it runs on (shared cases) or is no program of ours (`--url`)."""


@dataclass(frozen=True, slots=True)
class Settings:
    command: tuple[str, ...]
    timeout: float = 5.0
    """Seconds any one answer may take; a case's deadline is twice that plus its budget."""
    jobs: int = 4
    fresh: bool = False
    """Every case on a fresh program, shared cases too."""
    opener: Callable[[], Awaitable[Peer]] | None = None
    """Opens a connection in place of starting `command` (`--url`: url.Remote.open)."""
    busy_prompt: str | None = None
    """The prompt whose turn the cases that act on a running turn send (`--busy-prompt`; None:
    the suite's own, `steps.busy_prompt`)."""


SHARED_RUN = 12
"""Shared cases run in turn on one program, at most this many (the runs go in parallel)."""


class Program:
    """One run of the program under test, with its stderr kept in a file, and the cases that
    ran on it."""

    def __init__(self, peer: Peer, stderr: IO[bytes], context: Context) -> None:
        self.peer = peer
        self.stderr = stderr
        self.context = context
        self.ran: list[str] = []

    @classmethod
    async def start(cls, edition: Edition, settings: Settings, workdir: str) -> Program:
        stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the program
        try:
            if settings.opener is not None:
                peer = await settings.opener()
            else:
                # after a case closes its input, the program may take as long as an answer to
                # answer what it read and exit (a turn under way, on a loaded machine)
                peer = await Peer.spawn(
                    settings.command,
                    stderr=stderr,
                    exit_timeout=max(EXIT_GRACE, settings.timeout),
                )
        except ToolError:
            stderr.close()
            raise
        except OSError as error:
            stderr.close()
            raise ToolError(
                f"cannot start {settings.command[0]!r}: {error.strerror or error}"
            ) from None
        context = Context(peer, edition.data, edition.models, settings.timeout, workdir)
        context.busy_prompt = settings.busy_prompt
        return cls(peer, stderr, context)

    async def run(self, case: Case) -> Result:
        began = time.monotonic()
        first_frame = len(self.peer.transcript) if self.ran else 0
        # The first case on a program keeps what it said while starting (a program may print
        # and exit before the case begins); a later case keeps only what it said during it.
        first_byte = self.stderr.seek(0, os.SEEK_END) if self.ran else 0
        deadline = 2 * self.context.timeout + case.budget
        if not self.peer.received:  # a fresh program: its start is not the case's time
            deadline += START_ALLOWANCE
        stops = ""
        try:
            outcome = await asyncio.wait_for(case.check(self.context), deadline)
        except asyncio.TimeoutError:
            outcome = failed(f"no answer within {deadline:g} s")
        except NeverAnswered as error:
            stops = str(error)
            outcome = skipped(NOT_JUDGED + stops)
        except NotJudged as error:
            own = case.family in error.own
            outcome = failed(str(error)) if own else skipped(NOT_JUDGED + str(error))
        except (NoAnswer, Failure) as error:
            outcome = failed(str(error))
        except (Skip, Unsendable) as error:
            outcome = skipped(str(error))
        exit_status = None
        if not case.shared:
            await self.close()
            exit_status = self.peer.exit_status()
        frames = self.peer.transcript[first_frame:]
        last_byte = self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(first_byte, last_byte - STDERR_TAIL))
        tail = self.stderr.read().decode("utf-8", "replace")
        seconds = time.monotonic() - began
        result = Result(case, outcome, seconds, frames, tail, tuple(self.ran), stops, exit_status)
        self.ran.append(case.id)
        return result

    async def close(self) -> None:
        await self.peer.close()


async def run_job(
    cases: Sequence[Case],
    edition: Edition,
    settings: Settings,
    workdir: str,
    on_result: Callable[[Result], Any] = lambda _: None,
) -> list[Result]:
    """Cases in turn: a case that is not shared on a program of its own; shared cases one after
    another on one program until one does not pass (the next starts on a fresh program).
    `on_result` is told of each case as it finishes."""
    results: list[Result] = []
    pending = list(cases)
    while pending:
        program = await Program.start(edition, settings, workdir)
        try:
            while pending:
                result = await program.run(pending.pop(0))
                results.append(result)
                on_result(result)
                if not result.case.shared or result.outcome.status != "pass":
                    break
        finally:
            await program.close()
            program.stderr.close()
    return results


def jobs(cases: Sequence[Case], settings: Settings) -> list[list[Case]]:
    """The cases as runs: each case alone, but shared cases `SHARED_RUN` at a time (unless
    `settings.fresh`)."""
    alone = [[c] for c in cases if settings.fresh or not c.shared]
    shared = [c for c in cases if c.shared and not settings.fresh]
    return alone + [shared[i : i + SHARED_RUN] for i in range(0, len(shared), SHARED_RUN)]


async def run(
    cases: Sequence[Case],
    edition: Edition,
    settings: Settings,
    on_result: Callable[[Result], Any] = lambda _: None,
    stop: Stop | None = None,
) -> list[Result]:
    """Every case, `settings.jobs` runs at once, `on_result` told of each as it finishes; the
    results in the cases' order. When `stop` says so (`--fail-fast`, `initialize` never
    answered) the cases still running are abandoned and those not started never run."""
    stop = Stop() if stop is None else stop
    gate = asyncio.Semaphore(max(1, settings.jobs))
    done: list[Result] = []
    tasks: list[asyncio.Future[list[Result]]] = []

    def finished(result: Result) -> None:
        if stop.reason:
            return  # a case that ended after the stop is not reported
        done.append(result)
        on_result(result)
        if stop.see(result):
            for task in tasks:
                task.cancel()

    with tempfile.TemporaryDirectory(prefix="acp-conformance-") as workdir:

        async def one(job: list[Case]) -> list[Result]:
            async with gate:
                try:
                    return await run_job(job, edition, settings, workdir, finished)
                except Exception:  # the suite's own error ends every run at once
                    for task in tasks:
                        if task is not asyncio.current_task():
                            task.cancel()
                    raise

        tasks += [asyncio.ensure_future(one(job)) for job in jobs(cases, settings)]
        try:
            ended = await asyncio.gather(*tasks, return_exceptions=True)
            for outcome in ended:  # the suite's own error (a program that cannot start)
                if isinstance(outcome, Exception):
                    raise outcome
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    order = {case.id: n for n, case in enumerate(cases)}
    return sorted(done, key=lambda r: order[r.case.id])


async def detect_protocol(settings: Settings, unstable: bool) -> str:
    """The edition to test (`--protocol auto`): `initialize` asking the newest version this
    package has, answered with the version the program speaks."""
    keys = [k for k in editions() if k.endswith("/unstable") == unstable]
    if not keys:
        raise ToolError(f"{PACKAGE} has no {'unstable' if unstable else 'stable'} edition")
    newest = max(keys, key=lambda k: int(k.split("/")[0].removeprefix("v")))
    edition = load_edition(newest)
    with tempfile.TemporaryFile() as stderr:
        try:
            if settings.opener is not None:
                peer = await settings.opener()
            else:
                peer = await Peer.spawn(settings.command, stderr=stderr)
        except OSError as error:
            raise ToolError(
                f"cannot start {settings.command[0]!r}: {error.strerror or error}"
            ) from None
        try:
            n = edition.data.negotiation
            wire = initialize_wire(edition.data, edition.models, edition.data.protocol_version)
            peer.request("protocol", n.method, wire)
            frame = await peer.wait_for(is_answer, settings.timeout, f"answer to {n.method}")
            answer = frame.message or {}
            if not same_id(answer.get("id"), "protocol"):
                raise NoAnswer(f'{n.method} (id "protocol") was answered: {shown(frame)}')
        except NoAnswer as error:
            raise ToolError(
                f"--protocol auto: {error}; {came_back(peer)}; give --protocol"
            ) from None
        finally:
            await peer.close()
    result = answer.get("result")
    version = result.get(n.field) if type(result) is dict else None
    if type(version) is not int:
        raise ToolError(f"--protocol auto: initialize answered {answer}; give --protocol")
    for key in keys:
        if int(key.split("/")[0].removeprefix("v")) == version:
            return key
    raise ToolError(f"--protocol auto: the program speaks version {version}, which has no edition")
