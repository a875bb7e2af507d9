"""`python -m acp_protocol.trace view FILE [--html OUT]` (layer: report): a recording summarised
on the terminal, and, with `--html`, as one self-contained page (`page`).

The terminal summary: the program and edition, each session with its turns (stop reason,
duration, the prompt), each turn's tool calls with their final status, permission requests
with the answer and how long the user took, cancels and how long the agent took to honour
them; then the request latencies by method, and the problems. A line of the file that cannot be
read is one line on stderr naming FILE:LINE, and the rest is still summarised.

Problems: `trace check`'s violations (`check.check_recording`, each with its case id, level,
quote and frame), or the summary's own (`view_model`) where that module is absent.
"""

from __future__ import annotations

import importlib
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .frames import RecordedFrame, TraceError
from .view_model import Cancel, Permission, Problem, Summary, ToolCall, Turn
from .view_read import Recording
from .view_summary import Summariser

PROMPT_CHARS = 60


def summarise(
    path: Path, warn: Callable[[str], None] = lambda line: None
) -> tuple[Recording, Summary]:
    """The recording at `path`, read and summarised (TraceError: not a recording)."""
    recording = Recording(path, warn)
    summary = Summariser().feed_all(recording.frames())
    summary.problems[:0] = [Problem("unreadable line", w, None) for w in recording.warnings]
    return recording, summary


def problems(
    recording: Recording, summary: Summary, warn: Callable[[str], None] = lambda line: None
) -> list[Problem]:
    """The seam with `trace check`: its violations (`check.check_recording(frames, exit,
    input_closed)`, each with its case id, level, quote and frame) when that module is there,
    else the summary's own problems; the lines that could not be read are problems either way.
    A check that fails is one warning, and the summary's own problems stand."""
    try:
        check: Any = importlib.import_module(".check", __package__)
    except ImportError:
        return summary.problems
    unreadable = [p for p in summary.problems if p.kind == "unreadable line"]
    frames = (  # streamed: check keeps no frame
        RecordedFrame(f.t, "sent" if f.dir == "sent" else "received", f.value, f.raw)
        for f in recording.frames()
    )
    try:
        violations = check.check_recording(frames, recording.exit, recording.input_closed)
        found = [
            Problem("violation", v.message, v.frame, str(v.level), v.case, v.quote.text)
            for v in violations
        ]
    except Exception as error:  # a bug of the check must not hide the summary
        warn(f"trace check failed ({type(error).__name__}: {error}); the summary's own problems")
        return summary.problems
    return unreadable + found


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f} s"


def short(text: str, limit: int = PROMPT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_line(tool: ToolCall) -> str:
    kind = f" [{tool.kind}]" if tool.kind else ""
    statuses = [status for _, _, status, _ in tool.history]
    steps = " → ".join(s for n, s in enumerate(statuses) if n == 0 or statuses[n - 1] != s)
    return f"tool {short(tool.title or tool.id)}{kind}: {tool.status} ({steps}) #{tool.index}"


def permission_line(permission: Permission) -> str:
    request = permission.request
    return (
        f"permission {short(permission.title)!r}: {permission.answer}, "
        f"after {seconds(request.latency)} #{request.index}"
    )


def cancel_line(cancel: Cancel) -> str:
    if cancel.turn is None:
        return f"cancel at {cancel.t:.3f} s with no turn running #{cancel.index}"
    if cancel.turn.ended is None:
        return f"cancel at {cancel.t:.3f} s: never honoured (the turn never ended) #{cancel.index}"
    return (
        f"cancel at {cancel.t:.3f} s: honoured after {seconds(cancel.honoured)} "
        f"({cancel.turn.stop}) #{cancel.index}"
    )


def turn_lines(turn: Turn) -> list[str]:
    stop = turn.stop or "never ended"
    lines = [
        f"  turn {turn.number}: {stop}, {seconds(turn.duration)}, {turn.updates} updates: "
        f"{short(turn.prompt)!r} #{turn.request.index}"
    ]
    lines += [f"    {tool_line(tool)}" for tool in turn.tools]
    lines += [f"    {permission_line(p)}" for p in turn.permissions]
    lines += [f"    {cancel_line(c)}" for c in turn.cancels]
    if turn.plans:
        index, _, entries = turn.plans[-1]
        done = sum(1 for e in entries if isinstance(e, dict) and e.get("status") == "completed")
        lines.append(
            f"    plan: {len(turn.plans)} versions, last {done}/{len(entries)} done #{index}"
        )
    return lines


def latency_lines(summary: Summary) -> list[str]:
    by_method: dict[str, list[float]] = {}
    for request in summary.requests:
        if request.latency is not None:
            by_method.setdefault(
                f"{'→' if request.dir == 'sent' else '←'} {request.method}", []
            ).append(request.latency)
    lines = ["requests answered (→ the client's, ← the agent's): count, median, max"]
    for method, values in sorted(by_method.items(), key=lambda item: item[0][2:]):
        lines.append(
            f"  {method}: {len(values)}, {seconds(statistics.median(values))}, "
            f"{seconds(max(values))}"
        )
    return lines


def request_lines(summary: Summary) -> list[str]:
    """The error answers and the requests never answered, each at its frame."""
    errors = [r for r in summary.requests if r.error is not None]
    never = [r for r in summary.requests if r.answer is None]
    lines = [f"error answers: {len(errors)}"]
    for request in errors:
        error = request.error or {}
        lines.append(
            f"  #{request.answer} {request.method} (#{request.index}): error {error.get('code')} "
            f"{short(str(error.get('message', '')), 100)}"
        )
    lines.append(f"never answered: {len(never)}")
    lines += [f"  #{r.index} {r.method} (id {r.id!r}, {r.dir})" for r in never]
    return lines


def problem_line(problem: Problem) -> str:
    where = "" if problem.frame is None else f"#{problem.frame} "
    label = f"{problem.level} {problem.case}: " if problem.case else f"{problem.kind}: "
    return f"  {where}{label}{problem.text}"


def text(recording: Recording, summary: Summary, found: list[Problem]) -> str:
    """The terminal summary."""
    program = " ".join(recording.program) or "?"
    head = f"{recording.path}: {program}"
    if recording.case:
        head += f" (conformance case {recording.case})"
    ended = "" if recording.exit is None else f", exit {recording.exit}"
    lines = [
        head,
        f"ACP v{summary.edition}, {summary.frames} frames ({summary.sent} sent, "
        f"{summary.received} received, {summary.raw} not JSON-RPC), {recording.stderr} stderr "
        f"lines{ended}; #N is the Nth frame, from 0",
        f"{len(summary.sessions)} sessions, {len(summary.turns)} turns, {len(summary.tools)} tool "
        f"calls, {len(summary.permissions)} permission requests, {len(summary.cancels)} cancels",
    ]
    for session in summary.sessions.values():
        lines.append(f"session {session.id} ({session.how}) #{session.index}")
        if session.outside:
            lines.append(f"  {len(session.outside)} messages outside a turn (replayed history)")
        for turn in session.turns:
            lines += turn_lines(turn)
    lines += latency_lines(summary)
    lines += request_lines(summary)
    lines.append(f"problems: {len(found)}")
    lines += [problem_line(problem) for problem in found]
    return "\n".join(lines) + "\n"


def view(path: Path, html: Path | None = None) -> int:
    """Print the summary (and write the page); 0, or 2 when `path` is no recording."""

    def warn(line: str) -> None:
        print(f"trace: {line}", file=sys.stderr)

    try:
        recording, summary = summarise(path, warn)
    except TraceError as error:
        print(f"trace: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"trace: {error.strerror or error}: {path}", file=sys.stderr)
        return 2
    found = problems(recording, summary, warn)
    sys.stdout.write(text(recording, summary, found))
    if html is not None:
        from .page import write_page

        try:
            write_page(html, recording, summary, found)
        except OSError as error:
            print(f"trace: {error.strerror or error}: {html}", file=sys.stderr)
            return 2
    return 0
