"""`python -m tests.conformance.stdlib_agent [--protocol 1|2]`: an ACP agent written with the
standard library alone, from the schema texts (layer: entry point). `--protocol 2` (the default)
serves v2 and v1, whichever `initialize` negotiates; `--protocol 1` serves v1 only.
"""

from __future__ import annotations

import argparse
import asyncio

from .agent import Agent
from .wire import Connection, log


async def main(top: int) -> None:
    agent = Agent(top)
    connection = Connection(agent.request, agent.notification)
    agent.connect(connection)
    log(f"serving ACP {'v1' if top == 1 else 'v2 and v1'} on stdin/stdout (logs: stderr)")
    await connection.serve()
    log("stdin ended: every request read is answered; exiting")


def cli() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.stdlib_agent")
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2)
    asyncio.run(main(parser.parse_args().protocol))


cli()
