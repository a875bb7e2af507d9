"""Two-process bench client on the official ACP Python SDK: spawns the agent and measures.
Run: official_client.py N asyncio -- AGENT COMMAND…"""

from __future__ import annotations

import asyncio
from typing import Any

from acp import spawn_agent_process, text_block
from acp.schema import ClientCapabilities, FileSystemCapabilities, ReadTextFileResponse
from schedule import FILE_TEXT, arguments, measure


class BenchClient:
    updates = 0

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates += 1

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        return ReadTextFileResponse(content=FILE_TEXT)


async def main(n: int, command: list[str]) -> None:
    client = BenchClient()
    async with spawn_agent_process(client, *command) as (conn, _process):  # type: ignore[arg-type]
        fs = FileSystemCapabilities(read_text_file=True, write_text_file=False)
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(fs=fs))
        session = (await conn.new_session(cwd="/", mcp_servers=[])).session_id

        async def prompt(text: str) -> Any:
            return await conn.prompt(session_id=session, prompt=[text_block(text)])

        await measure("official-asyncio", n, prompt, lambda: client.updates)


if __name__ == "__main__":
    n, _loop, command = arguments()
    asyncio.run(main(n, command))
