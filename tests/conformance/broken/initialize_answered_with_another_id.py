"""The base agent (base.py) with one bug: `initialize` is answered with another id (the
request's plus 1000), every other request with its own."""

from __future__ import annotations

import json

from acp_protocol.runtime import Connection, open_stdio, run

from tests.conformance.broken.base import Agent, Bugs, Tapped

ANOTHER = 1000


class AnotherId(Tapped):
    """The stdio transport, the `initialize` request's id changed as it is read (so the
    dispatcher answers the changed id)."""

    async def read(self) -> bytes:
        read = await super().read()
        return b"".join(self.changed(line) for line in read.splitlines(keepends=True))

    def changed(self, line: bytes) -> bytes:
        try:
            message = json.loads(line)
        except ValueError:
            return line
        if not isinstance(message, dict) or message.get("method") != "initialize":
            return line
        if type(message.get("id")) is not int:
            return line
        message["id"] += ANOTHER
        return json.dumps(message).encode() + b"\n"


async def main() -> None:
    bugs = Bugs()
    agent = Agent(bugs)
    transport = AnotherId(await open_stdio(), bugs, agent)
    async with Connection(transport, agent.handlers()) as connection:
        agent.connection = connection
        await connection.wait_closed()


run(main())
