"""Two-process bench agent on the generated typed layer (`acp_protocol.v1`), stdio.
Run: python ours_agent.py LOOP (`uvloop` or `asyncio`)."""

from __future__ import annotations

import asyncio
import sys

from acp_protocol.runtime import run
from acp_protocol.v1 import helpers, models
from acp_protocol.v1.agent import Agent, AgentContext, run_agent
from schedule import CHUNK, READ_PATH


class BenchAgent(Agent):
    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id="bench")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        text = " ".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        kind, *args = text.split()
        session = params.session_id
        if kind == "flood":
            note = models.SessionNotification(
                session_id=session, update=helpers.agent_message_chunk(CHUNK)
            )
            for _ in range(int(args[0])):
                await ctx.client.session_update(note)
        else:
            left = [int(args[0])]
            read = models.ReadTextFileRequest(session_id=session, path=READ_PATH)

            async def worker() -> None:
                while left[0] > 0:
                    left[0] -= 1
                    await ctx.client.fs_read_text_file(read)

            await asyncio.gather(*(worker() for _ in range(int(args[1]))))
        return models.PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    run(run_agent(BenchAgent()), event_loop=sys.argv[1])
