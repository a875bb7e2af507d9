"""A client built on the official ACP Python SDK (`agent-client-protocol` 0.12.1).

Usage: python official_client.py <agent program> [args...]. It spawns the agent, runs
initialize → session/new → session/prompt "stream", and prints one JSON line with the response and
the `session/update`s it received (as the SDK parsed them, dumped back to wire form).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from acp import text_block
from acp.stdio import spawn_agent_process


class OfficialClient:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))


async def main(program: str, *args: str) -> None:
    client = OfficialClient()
    async with spawn_agent_process(client, program, *args) as (conn, _process):  # type: ignore[arg-type]
        init = await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd="/", mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("stream")])
    report = {
        "protocolVersion": init.protocol_version,
        "sessionId": session.session_id,
        "response": response.model_dump(mode="json", by_alias=True, exclude_none=True),
        "updates": client.updates,
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
