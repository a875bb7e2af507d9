"""`python -m acp_protocol.trace record --out FILE -- AGENT_PROGRAM [ARGS…]` and
`python -m acp_protocol.trace view FILE [--html OUT]` (`view`) (layer: command line).

`record`: an editor starts this instead of the agent; the conversation goes through unchanged and
is written to FILE (the format: acp_protocol.trace.frames). Exit status: the agent's. A failure of
the recorder itself (no such program, an unwritable FILE) is one line on stderr and status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import check_cli
from .record import record
from .view import view


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m acp_protocol.trace")
    commands = parser.add_subparsers(dest="command", required=True)
    recorder = commands.add_parser("record", help="record a conversation with the agent PROGRAM")
    recorder.add_argument("--out", required=True, type=Path, help="the recording (JSON Lines)")
    recorder.add_argument("program", nargs=argparse.REMAINDER, help="-- AGENT_PROGRAM [ARGS…]")
    viewer = commands.add_parser("view", help="summarise a recording (and write it as a page)")
    viewer.add_argument("file", type=Path, help="a recording, or a conformance case trace")
    viewer.add_argument("--html", type=Path, help="also write the recording as one HTML page")
    check_cli.add_parsers(commands)
    options = parser.parse_args(argv)
    if options.command in ("check", "import"):
        return check_cli.run(options)
    if options.command == "view":
        return view(options.file, options.html)
    program = list(options.program)
    if program[:1] == ["--"]:
        program = program[1:]
    if not program:
        parser.error("record needs the agent's command after --")
    try:
        return record(program, options.out)
    except OSError as error:
        print(f"trace: {error.strerror or error}: {error.filename or options.out}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
