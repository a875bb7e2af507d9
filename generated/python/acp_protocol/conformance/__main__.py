# Copied by acp-codegen from templates/python/conformance/__main__.py. Do not edit here:
# edit the source, then run `make generate`.

"""`python -m acp_protocol.conformance agent [options] -- CMD …` (layer: command line); the
`client` mode is client_main's.

Runs the edition's cases against the agent CMD starts (a fresh process per case), prints one
line per case as it finishes (stderr), then the report and a summary by level (stdout), and
exits 0 only when no MUST case failed (1 otherwise, or when the run stopped on a MUST rule).
Every failure of the suite itself (no such program, a bad option) is one line on stderr and
exit status 2. docs/conformance.md describes the cases, the levels and the trace format.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .client_main import add_parser as add_client_parser
from .client_main import main_client
from .fuzz import FRAMES, SEED, seeded
from .outputs import run_and_report
from .runner import (
    Settings,
    ToolError,
    all_cases,
    check_program,
    detect_protocol,
    editions,
    load_edition,
    run,
    select,
)
from .url import add_arguments as add_url_arguments
from .url import prepare as prepare_url

PROG = "python -m acp_protocol.conformance"
TOOL_ERROR = 2
JOBS = min(16, 4 * (os.cpu_count() or 1))
"""Cases run at once by default: a case mostly waits on the program, so more than the cores."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ToolError(message)


def parser() -> Parser:
    top = Parser(prog=PROG, description="ACP conformance cases, run against an agent.")
    modes = top.add_subparsers(dest="mode", required=True, parser_class=Parser)
    agent = modes.add_parser(
        "agent",
        help="test the agent CMD starts (stdio)",
        description="Test the agent that `CMD …` starts, over its stdin/stdout.",
    )
    protocols = ["auto", *sorted({key.split("/")[0] for key in editions()})]
    agent.add_argument(
        "--protocol",
        choices=protocols,
        default="auto",
        help="the protocol version's cases to run (auto: the version the agent answers)",
    )
    agent.add_argument("--unstable", action="store_true", help="the unstable schema's edition")
    agent.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help="run only cases whose id matches (repeatable, or comma-separated)",
    )
    agent.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out cases whose id matches (repeatable, or comma-separated)",
    )
    agent.add_argument(
        "--jobs", type=int, default=JOBS, metavar="N", help=f"cases run at once ({JOBS})"
    )
    agent.add_argument(
        "--timeout", type=float, default=5.0, metavar="S", help="seconds one answer may take (5)"
    )
    agent.add_argument(
        "--fresh", action="store_true", help="every case on a program of its own (slower)"
    )
    agent.add_argument(
        "--fail-fast", action="store_true", help="stop at the first MUST failure (the rest not run)"
    )
    agent.add_argument(
        "--busy-prompt",
        metavar="TEXT",
        help="a prompt the agent takes long enough on to be cancelled while its turn runs (the "
        "cancel and close cases send it; default: 120 words, which our starters stream 50 ms "
        "apart)",
    )
    agent.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    agent.add_argument("--trace", type=Path, metavar="DIR", help="write one JSON trace per case")
    agent.add_argument("--html", type=Path, metavar="FILE", help="write one self-contained page")
    agent.add_argument("--list", action="store_true", help="list the selected cases and exit")
    agent.add_argument("--verbose", "-v", action="store_true", help="show every case's quote")
    agent.add_argument("--seed", type=int, default=SEED, help=f"the fuzz's seed ({SEED})")
    agent.add_argument(
        "--frames", type=int, default=FRAMES, metavar="N", help=f"fuzz lines ({FRAMES})"
    )
    add_url_arguments(agent)
    agent.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD …")
    add_client_parser(modes, protocols, JOBS)
    return top


def globs(values: Sequence[str]) -> list[str]:
    return [g.strip() for value in values for g in value.split(",") if g.strip()]


async def main_async(argv: Sequence[str]) -> int:
    options = parser().parse_args(argv)
    if options.mode == "client":
        return await main_client(options)
    command = list(options.command)
    if command[:1] == ["--"]:
        command = command[1:]
    remote = None
    if options.url is not None and not options.list:
        if command:
            raise ToolError("give --url or a command after `--`, not both")
        remote = await prepare_url(
            options.url, options.token_env, options.protocol, options.unstable
        )
        command = [options.url]  # what reports name: the URL, never the token
    settings = Settings(
        tuple(command),
        timeout=options.timeout,
        jobs=options.jobs,
        fresh=options.fresh,
        opener=None if remote is None else remote.open,
        busy_prompt=options.busy_prompt,
    )
    if not options.list and remote is None:
        check_program(command)
    if options.protocol == "auto":
        if options.list:
            raise ToolError("--list needs --protocol v1|v2 (auto asks the agent)")
        protocol = await detect_protocol(settings, options.unstable)
    else:
        protocol = options.protocol + ("/unstable" if options.unstable else "")
    edition = load_edition(protocol)
    every = seeded(
        all_cases(edition.data),
        options.seed,
        max(1, options.frames),
        edition.data.null_request_id,
    )
    cases = select(every, globs(options.only), globs(options.skip))
    if options.list:
        for case in cases:
            print(f"{case.level:11}  {case.id}  {case.title}")
        return 0
    if not cases:
        raise ToolError("no case matches --only/--skip")
    print(
        f"{len(cases)} cases of ACP {protocol} ({edition.data.source}) against "
        f"`{' '.join(command)}`, {settings.jobs} at once",
        file=sys.stderr,
    )
    return await run_and_report(
        len(cases),
        lambda progress, stop: run(cases, edition, settings, progress, stop),
        options,
        protocol,
        edition.data.source,
        command,
    )


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return asyncio.run(main_async(sys.argv[1:] if argv is None else argv))
    except ToolError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return TOOL_ERROR
    except OSError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return TOOL_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
