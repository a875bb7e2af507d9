"""An agent built on the official ACP Python SDK (`agent-client-protocol` 0.12.1), on stdio.

A prompt "stream" is answered with three `agent_message_chunk` updates and `end_turn`; anything
else with `refusal`. The interop tests drive it with our generated client.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp import run_agent, text_block, update_agent_message
from acp.schema import InitializeResponse, NewSessionResponse, PromptResponse


class OfficialAgent:
    def __init__(self) -> None:
        self._client: Any = None
        self._sessions = 0

    def on_connect(self, conn: Any) -> None:
        self._client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self._sessions += 1
        return NewSessionResponse(session_id=f"official-{self._sessions}")

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        if text != "stream":
            return PromptResponse(stop_reason="refusal")
        for part in ("one ", "two ", "three"):
            await self._client.session_update(session_id, update_agent_message(text_block(part)))
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(OfficialAgent()))  # type: ignore[arg-type]
