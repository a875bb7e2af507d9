"""What a run leaves (layer: report): the one place both modes (`agent`, `client`) run their
selected cases, a line per case on stderr as it finishes, and then write what they found: the
report on stdout, `--junit`, `--trace`, `--html`, and the exit status (docs/conformance.md,
"Exit status"); a run stopped early (`--fail-fast`, `initialize` never answered) says so.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timezone

from .page import html_page
from .report import Progress, junit, print_report, write_traces
from .runner import Result
from .stopping import Stop

MUST_FAILED = 1
"""The exit status when a MUST case failed ("Exit 0 only when no MUST fails")."""


async def run_and_report(
    count: int,
    execute: Callable[[Progress, Stop], Awaitable[list[Result]]],
    options: argparse.Namespace,
    protocol: str,
    source: str,
    command: Sequence[str],
) -> int:
    """Run `count` cases through `execute` under a progress line, then report them as the
    options ask; the exit status: `MUST_FAILED` when a MUST case failed or the run stopped on
    a MUST rule, else 0."""
    progress = Progress(count)
    stop = Stop(getattr(options, "fail_fast", False))
    began = time.monotonic()
    try:
        results = await execute(progress, stop)
    finally:
        progress.end()
    seconds = time.monotonic() - began
    print_report(results, seconds, options.verbose, stop=stop, total=count)
    if options.junit is not None:
        junit(results, seconds, protocol).write(
            options.junit, encoding="utf-8", xml_declaration=True
        )
    if options.trace is not None:
        write_traces(options.trace, results, protocol, command)
    if options.html is not None:
        when = datetime.now(timezone.utc)
        page = html_page(results, seconds, protocol, source, command, when, stop, count)
        options.html.write_text(page, encoding="utf-8")
    must_failed = any(r.case.level == "MUST" and r.outcome.status == "fail" for r in results)
    return MUST_FAILED if must_failed or stop.must else 0
