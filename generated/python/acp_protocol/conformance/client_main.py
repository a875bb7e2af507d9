# Copied by acp-codegen from templates/python/conformance/client_main.py. Do not edit here:
# edit the source, then run `make generate`.

"""`python -m acp_protocol.conformance client [options] -- CMD …` (layer: command line).

The suite plays a scripted agent and runs the client CMD starts, a fresh one per case: in CMD,
`{agent}` is the agent command the client should start (a relay to the suite), `{prompt}` the
prompt text; without `{agent}`, the agent command is appended. `--stdin TEXT` gives a client that
reads its prompts from standard input the line TEXT (`{prompt}` filled in), then the input's end.
Reports, exit statuses and levels are the agent mode's (docs/conformance.md, "Testing a client").
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .client_runner import ClientSettings, all_client_cases, detect_client_protocol, run_clients
from .outputs import run_and_report
from .runner import ToolError, check_program, load_edition, select


def add_parser(modes: Any, protocols: Sequence[str], jobs: int) -> None:
    client = modes.add_parser(
        "client",
        help="test the client CMD starts (it starts {agent}: the suite's scripted agent)",
        description="Test the client that `CMD …` starts; `{agent}` in CMD is the agent command "
        "it should start (appended when absent), `{prompt}` the prompt text.",
    )
    client.add_argument(
        "--protocol",
        choices=protocols,
        default="auto",
        help="the protocol version's cases to run (auto: the version the client's initialize asks)",
    )
    client.add_argument("--unstable", action="store_true", help="the unstable schema's edition")
    client.add_argument("--only", action="append", default=[], metavar="GLOB")
    client.add_argument("--skip", action="append", default=[], metavar="GLOB")
    client.add_argument(
        "--sigint", action="store_true", help="the client cancels on Ctrl-C: test it"
    )
    client.add_argument(
        "--permission",
        choices=("allow", "reject"),
        help="the option kind the client selects for a permission request (its flags): test it",
    )
    client.add_argument(
        "--stdin",
        metavar="TEXT",
        help="the line the client reads from standard input ({prompt} filled in), then its end;"
        " default: /dev/null",
    )
    client.add_argument(
        "--jobs", type=int, default=jobs, metavar="N", help=f"cases run at once ({jobs})"
    )
    client.add_argument(
        "--timeout", type=float, default=5.0, metavar="S", help="seconds one answer may take (5)"
    )
    client.add_argument(
        "--fail-fast", action="store_true", help="stop at the first MUST failure (the rest not run)"
    )
    client.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    client.add_argument("--trace", type=Path, metavar="DIR", help="write one JSON trace per case")
    client.add_argument("--html", type=Path, metavar="FILE", help="write one self-contained page")
    client.add_argument("--list", action="store_true", help="list the selected cases and exit")
    client.add_argument("--verbose", "-v", action="store_true", help="show every case's quote")
    client.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD …")


def _globs(values: Sequence[str]) -> list[str]:
    return [g.strip() for value in values for g in value.split(",") if g.strip()]


async def main_client(options: argparse.Namespace) -> int:
    command = list(options.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not options.list:
        check_program(command)
        if os.sep in command[0]:  # the client runs in a folder of its own
            command[0] = os.path.abspath(command[0])
    settings = ClientSettings(
        tuple(command),
        timeout=options.timeout,
        jobs=options.jobs,
        sigint=options.sigint,
        permission=options.permission,
        stdin=options.stdin,
    )
    if options.protocol == "auto":
        if options.list:
            raise ToolError("--list needs --protocol v1|v2 (auto asks the client)")
        protocol = await detect_client_protocol(settings, options.unstable)
    else:
        protocol = options.protocol + ("/unstable" if options.unstable else "")
    edition = load_edition(protocol)
    cases = select(all_client_cases(edition), _globs(options.only), _globs(options.skip))
    if options.list:
        for case in cases:
            print(f"{case.level:11}  {case.id}  {case.title}")
        return 0
    if not cases:
        raise ToolError(f"no client case of {protocol} matches --only/--skip")
    print(
        f"{len(cases)} client cases of ACP {protocol} ({edition.data.source}) against "
        f"`{' '.join(command)}`, {settings.jobs} at once",
        file=sys.stderr,
    )
    return await run_and_report(
        len(cases),
        lambda progress, stop: run_clients(cases, edition, settings, progress, stop),
        options,
        protocol,
        edition.data.source,
        command,
    )
