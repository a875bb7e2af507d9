"""The seeded fuzz (layer: case family): `--frames N` lines drawn from `--seed S` (fuzz_frames),
each followed by a probe request, all written at once after `initialize`; every line's required
outcome is then checked, one case per level (`fuzz.must`, `fuzz.informative`: no rule of the
book says SHOULD), each on a program of its own reading every line and judging the requirements
of its level.

Answers are matched to lines by their id (every line's readable id is its own); an answer with a
null id (or none that can be read) belongs to the line before the probe that follows it, since
a line is answered before the probe written after it. The probe after each line must be answered
(JSON-RPC 2.0 §4: a request is answered): a connection that stops answering fails at that line.
The report names the seed and the frame count, so a failure is rerun exactly:
`--seed S --frames N --only 'fuzz.*'`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .cases import JSON_RPC, Case, Context, Outcome, failed, passed
from .data import EditionData, Level, Quote
from .envelope import shape_problem
from .fuzz_frames import FuzzFrame, Requirement, make_frames
from .peer import Frame, NoAnswer, is_response, same_id
from .steps import PROBE_METHOD, initialized

SEED = 20260525
"""The default seed (the rule book's): the same frames every run unless `--seed` says."""
FRAMES = 300
SETTLE = 0.2
"""Seconds after the last probe's answer in which late answers still count."""
SHOWN = 3
"""Deviations named in a failure's reason (the outcome's details, in the trace, hold all)."""

QUOTES: dict[Level, Quote] = {
    "MUST": Quote(
        "When a rpc call is made, the Server MUST reply with a Response, except for in the case "
        "of Notifications. [...] id: [...] It MUST be the same as the value of the id member in "
        "the Request Object. If there was an error in detecting the id in the Request object "
        "(e.g. Parse error/Invalid Request), it MUST be Null. [...] The Server MUST NOT reply to "
        "a Notification",
        f"{JSON_RPC} §4, §5; the envelope rule book's MUST rules (envelope.json)",
    ),
    "informative": Quote(
        "-32600 Invalid Request: The JSON sent is not a valid Request object. -32601 Method not "
        "found: The method does not exist / is not available. A JSON parser MAY accept non-JSON "
        "forms or extensions. (the rule book's informative rules: the error codes JSON-RPC names "
        "by meaning alone, responses and malformed notifications never answered, blank lines, ids "
        "JSON-RPC admits and ACP's RequestId does not, forms RFC 8259 leaves to the parser, "
        "batches, bytes that are not UTF-8)",
        f"{JSON_RPC} §5.1; RFC 8259 §9; the envelope rule book (envelope.json)",
    ),
}
CASE_IDS: dict[Level, str] = {
    "MUST": "fuzz.must",
    "informative": "fuzz.informative",
}
"""The rule book's rules are MUST or informative by their quotes' words (none is SHOULD: JSON-RPC
names its error codes by meaning alone), so the fuzz has these two cases."""


def cases(edition: EditionData) -> list[Case]:
    return fuzz_cases(SEED, FRAMES, edition.null_request_id)


def fuzz_cases(seed: int, count: int, null_id: bool = False) -> list[Case]:
    return [
        Case(
            case_id,
            f"{count} seeded lines (seed {seed}): each gets what the {level} rules require",
            level,
            QUOTES[level],
            _check(seed, count, level, null_id),
            budget=count * 0.02,
        )
        for level, case_id in CASE_IDS.items()
    ]


def seeded(found: Sequence[Case], seed: int, count: int, null_id: bool = False) -> list[Case]:
    """`found` with the fuzz cases made for `seed` and `count` (`--seed`, `--frames`; `null_id`:
    the edition's RequestId admits null)."""
    made = {case.id: case for case in fuzz_cases(seed, count, null_id)}
    return [
        (
            dataclasses.replace(case, title=made[case.id].title, check=made[case.id].check)
            if case.id in made
            else case
        )
        for case in found
    ]


def _probe_id(number: int) -> str:
    return f"fuzz-probe-{number}"


def _check(seed: int, count: int, level: Level, null_id: bool = False) -> Any:
    async def check(ctx: Context) -> Outcome:
        frames = make_frames(seed, count, null_id)
        await initialized(ctx)
        windows, complete = await _send(ctx, frames)
        rerun = f"seed {seed}, {count} frames (rerun: --seed {seed} --frames {count})"
        deviations = judge(frames, windows, level)
        if not complete and level == "MUST":
            last = frames[len(windows) - 1]
            deviations.append(_where(last, "the probe request after it was never answered"))
        if deviations:
            shown = "; ".join(deviations[:SHOWN])
            return failed(f"{rerun}: {len(deviations)} deviations: {shown}", tuple(deviations))
        checked = sum(1 for f in frames for r in f.requirements if r.level == level)
        return passed(f"{rerun}: {checked} {level} requirements met")

    return check


async def _send(ctx: Context, frames: list[FuzzFrame]) -> tuple[list[list[Frame]], bool]:
    """Each line then its probe, the next line once the probe is answered (and, for a line
    that must get an answer with a null id, once one came): what was read meanwhile, per line,
    and whether every probe was answered (if not, the last window is the unanswered one's)."""
    windows: list[list[Frame]] = []
    null_wait = ctx.timeout
    for frame in frames:
        start = len(ctx.peer.received)
        probe_id = _probe_id(frame.number)
        ctx.peer.send_line(frame.line)
        ctx.peer.request(probe_id, PROBE_METHOD)
        try:
            await ctx.peer.answer(probe_id, ctx.timeout, "the probe")
        except NoAnswer:
            windows.append(ctx.peer.received[start:])
            return windows, False
        if any(r.answered and r.id is None for r in frame.requirements):
            try:
                await ctx.peer.wait_for(lambda f: is_response(f, None), null_wait, "", start=start)
            except NoAnswer:  # the requirement says so; the next lines wait less for theirs
                null_wait = SETTLE
        windows.append([f for f in ctx.peer.received[start:] if not is_response(f, probe_id)])
    end = len(ctx.peer.received)
    await ctx.peer.quiet(SETTLE)
    windows[-1] += ctx.peer.received[end:]
    return windows, True


def _attribute(frames: list[FuzzFrame], windows: list[list[Frame]]) -> dict[int, list[Any]]:
    """Every answer read, by the line it belongs to: the line with its id, else the line it
    was read after."""
    by_id = {_key(f.id): f.number for f in frames if f.id is not None}
    answers: dict[int, list[Any]] = {f.number: [] for f in frames}
    for number, window in enumerate(windows):
        for got in window:
            message = got.message
            if message is not None and "method" in message:
                continue  # the agent's own requests and notifications are not answers
            owner = number
            if message is not None and message.get("id") is not None:
                owner = by_id.get(_key(message["id"]), number)
            answers[owner].append(got.value if got.is_json else got.raw)
    return answers


def _key(value: Any) -> str:
    return f"{type(value).__name__}:{value!r}"


def judge(frames: list[FuzzFrame], windows: list[list[Frame]], level: Level) -> list[str]:
    """Every way the answers read differ from what the `level` requirements of `frames` ask
    (the lines a connection that stopped answering never read are not judged)."""
    answers = _attribute(frames, windows)
    found: list[str] = []
    for frame in frames[: len(windows)]:
        got = answers[frame.number]
        for requirement in frame.requirements:
            if requirement.level == level:
                problem = _unmet(requirement, got)
                if problem is not None:
                    found.append(_where(frame, f"{requirement.rule}: {problem}"))
        if level == "MUST" and frame.kind != "batch":
            for value in got:
                shape = shape_problem(value)
                if shape is not None:
                    found.append(_where(frame, f"an answer that is {shape}"))
    return found


def _unmet(requirement: Requirement, got: list[Any]) -> str | None:
    if not requirement.answered:
        return f"answered {_show(got[0])}" if got else None
    mine = [a for a in got if type(a) is dict and same_id(a.get("id"), requirement.id)]
    if not mine:
        return f"no answer with id {_show(requirement.id)}" + (
            f" (got {_show(got[0])})" if got else ""
        )
    if len(mine) > 1:
        return f"{len(mine)} answers"
    error = mine[0].get("error")
    code = error.get("code") if type(error) is dict else None
    if requirement.code is not None and code != requirement.code:
        return f"answered {_show(mine[0])}"
    return None


def _where(frame: FuzzFrame, what: str) -> str:
    line = frame.line.decode("utf-8", "backslashreplace")
    if len(line) > 90:
        line = line[:89] + "…"
    return f"frame #{frame.number} ({frame.kind}) {line!r}: {what}"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:119] + "…"
