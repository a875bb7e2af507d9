"""Two-process bench agent on the official ACP Python SDK (`agent-client-protocol`), stdio, on
asyncio's loop as the SDK runs it. Run with .venv-official's python: official_agent.py."""

from __future__ import annotations

import asyncio
from typing import Any

from acp import run_agent, text_block, update_agent_message
from acp.schema import InitializeResponse, NewSessionResponse, PromptResponse
from schedule import CHUNK, READ_PATH


class BenchAgent:
    conn: Any

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="bench")

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        kind, *args = " ".join(getattr(b, "text", "") for b in prompt).split()
        if kind == "flood":
            update = update_agent_message(text_block(CHUNK))
            for _ in range(int(args[0])):
                await self.conn.session_update(session_id=session_id, update=update)
        else:
            left = [int(args[0])]

            async def worker() -> None:
                while left[0] > 0:
                    left[0] -= 1
                    await self.conn.read_text_file(path=READ_PATH, session_id=session_id)

            await asyncio.gather(*(worker() for _ in range(int(args[1]))))
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(BenchAgent()))  # type: ignore[arg-type]
