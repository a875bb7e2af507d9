"""`trace check FILE` and `trace import FILE --out OUT` (layer: command line).

`check` prints one line per violation (level, case id, the side that broke it, the frame, what
was seen) with the quote under it, then a summary; the exit status is the conformance suite's:
1 when a MUST rule was broken, else 0; 2 when the file cannot be read (one line on stderr).
Both read the file as a stream: a recording of any size is judged in bounded memory. `check
DIR` judges the conformance suite's `--trace DIR`: each case trace alone, its violations under
its name.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from ..conformance.runner import editions
from .check import Checker
from .check_messages import Violation
from .frames import TraceError
from .imports import FORMATS, Source, write_ours

MUST_BROKEN = 1
"""The exit status when a MUST rule was broken (the suite's: docs/conformance.md)."""
CANNOT_READ = 2


def add_parsers(commands: Any) -> None:
    checker = commands.add_parser(
        "check", help="judge a recording by every rule a recording can show"
    )
    checker.add_argument(
        "file",
        type=Path,
        help="the recording, a conformance case trace, or the suite's --trace folder",
    )
    _source_options(checker)
    checker.add_argument(
        "--quiet", action="store_true", help="violations on one line each, no quotes"
    )
    importer = commands.add_parser("import", help="convert another tool's log to a recording")
    importer.add_argument("file", type=Path, help="the log")
    _source_options(importer)
    importer.add_argument("--out", required=True, type=Path, help="the recording (JSON Lines)")


def _source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="source",
        choices=FORMATS,
        default="acp",
        help="the file's format (acp: ours; rust-sdk: the Rust SDK conductor's --trace; "
        "lines: a JSON-RPC line log with --> / <-- markers)",
    )
    parser.add_argument(
        "--between",
        nargs=2,
        default=("Client", "Agent"),
        metavar=("CLIENT", "AGENT"),
        help="rust-sdk: the two components whose messages are the conversation",
    )


def judge(source: Source) -> tuple[list[Violation], int]:
    """The violations `source` shows (of the program under test alone, for a conformance case
    trace) and how many frames it has."""
    frames: Iterator[Any] = source.frames()
    first = next(frames, None)  # the source's head is read: a case trace's edition is known
    checker = Checker(source.edition if source.edition in editions() else None)
    for frame in chain([first] if first is not None else [], frames):
        checker.feed(frame)
    found = checker.finish(source.exit_status, source.input_closed)
    if source.side is not None:
        found = [v for v in found if v.side == source.side]
    return found, checker.count


def run(options: argparse.Namespace) -> int:
    source = Source(options.file, options.source, tuple(options.between))
    try:
        if options.command == "import":
            origin = f"imported from {options.source}: {options.file}"
            count = write_ours(source, options.out, [origin])
            print(f"{count} frames written to {options.out}", file=sys.stderr)
            return 0
        if options.file.is_dir():
            return _folder(options)
        found, count = judge(source)
    except (OSError, UnicodeDecodeError) as error:
        print(
            f"trace: {getattr(error, 'strerror', None) or error}: {options.file}", file=sys.stderr
        )
        return CANNOT_READ
    except TraceError as error:
        print(f"trace: {error}", file=sys.stderr)
        return CANNOT_READ
    _report(found, options.quiet)
    return _summary(found, f"{count} frames")


def _folder(options: argparse.Namespace) -> int:
    """The suite's `--trace DIR`: every case trace in it, each judged alone."""
    found: list[Violation] = []
    files = frames = 0
    for path in sorted(options.file.glob("*.json")):
        source = Source(path)
        violations, count = judge(source)
        files, frames = files + 1, frames + count
        if violations:
            print(f"{path.name} ({source.case}):")
            _report(violations, options.quiet)
        found += violations
    if files == 0:
        raise TraceError(f"{options.file}: no case trace (*.json) in the folder")
    return _summary(found, f"{files} case traces, {frames} frames")


def _report(found: list[Violation], quiet: bool) -> None:
    for violation in found:
        print(
            f"{violation.level:<11}  {violation.case}  [{violation.side}] "
            f"frame {violation.frame}: {violation.message}"
        )
        if not quiet:
            print(f'    "{violation.quote.text}" ({violation.quote.source})')


def _summary(found: list[Violation], what: str) -> int:
    levels = Counter(v.level for v in found)
    counts = ", ".join(f"{levels[level]} {level}" for level in ("MUST", "SHOULD", "informative"))
    verdict = "MUST rule broken" if levels["MUST"] else "no MUST rule broken"
    print(f"{what}, {len(found)} violations ({counts}): {verdict}")
    return MUST_BROKEN if levels["MUST"] else 0
