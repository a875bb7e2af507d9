"""docs/typed-layer.md's client state, run against the v2 starter agent: `connection` is a v2
client's connection to it after `initialize`, `session_id` a session it created."""

import asyncio
import os
import sys
import tempfile

from acp_codegen.cli import main as acp_codegen
from acp_protocol.v2 import models
from acp_protocol.v2.client import Client, spawn_agent

AGENT = os.path.join(tempfile.mkdtemp(), "agent.py")
assert acp_codegen(["scaffold", "agent", "--protocol", "v2", "--out", AGENT]) == 0


async def main() -> None:
    async with spawn_agent(Client(), sys.executable, AGENT) as connection:
        info = models.Implementation(name="docs", version="0")
        await connection.agent.initialize(models.InitializeRequest(protocol_version=2, info=info))
        new = models.NewSessionRequest(cwd=os.getcwd())
        session_id = (await connection.agent.session_new(new)).session_id

        # FRAGMENT

        assert snapshot["targets"]["agentMessage"], snapshot
        assert snapshot["targets"]["state"]["state"] == "idle", snapshot


asyncio.run(main())
