"""An agent built on the generated `acp_protocol.v1.agent`, serving on stdio, for the interop tests.

What a prompt does depends on its text:
- "stream": three `agent_message_chunk` updates ("one ", "two ", "three"), then `end_turn`;
- "slow": one chunk ("working"), then waits; cancelled by `$/cancel_request` it is answered
  `-32800`, by `session/cancel` `stopReason: "cancelled"` (both by the generated layer);
- "nested": asks the client for `fs/read_text_file` and waits for it: cancelling the prompt
  cascades a `$/cancel_request` to that nested request;
- "info": three `session_info_update`s: a title with `_meta`, a cleared title, a cleared `_meta`.
"""

from __future__ import annotations

import asyncio
import itertools
import sys

from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext, run_agent

INFO_UPDATES = (
    models.SessionUpdateSessionInfoUpdate(
        session_update="session_info_update",
        title="Interop title",
        meta={"trace": {"step": 1, "tags": ["a", "b"]}},
    ),
    models.SessionUpdateSessionInfoUpdate(session_update="session_info_update", title=None),
    models.SessionUpdateSessionInfoUpdate(
        session_update="session_info_update", updated_at="2026-11-21T12:00:00Z", meta=None
    ),
)


def chunk(session_id: str, text: str) -> models.SessionNotification:
    content = models.ContentBlockText(type="text", text=text)
    update = models.SessionUpdateAgentMessageChunk(
        session_update="agent_message_chunk", content=content
    )
    return models.SessionNotification(session_id=session_id, update=update)


class InteropAgent(Agent):
    def __init__(self) -> None:
        self._session_numbers = itertools.count(1)

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse(
            protocol_version=params.protocol_version,
            agent_info=models.Implementation(name="acp-codegen-interop-agent", version="0"),
        )

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=f"py-{next(self._session_numbers)}")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        text = "".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        session_id = params.session_id
        if text == "stream":
            for part in ("one ", "two ", "three"):
                await ctx.client.session_update(chunk(session_id, part))
        elif text == "slow":
            await ctx.client.session_update(chunk(session_id, "working"))
            await asyncio.Event().wait()  # until cancelled
        elif text == "nested":
            request = models.ReadTextFileRequest(session_id=session_id, path="/interop/held.txt")
            await ctx.client.fs_read_text_file(request)
        elif text == "info":
            for update in INFO_UPDATES:
                notification = models.SessionNotification(session_id=session_id, update=update)
                await ctx.client.session_update(notification)
        return models.PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    try:
        asyncio.run(run_agent(InteropAgent()))
    except KeyboardInterrupt:
        sys.exit(130)
