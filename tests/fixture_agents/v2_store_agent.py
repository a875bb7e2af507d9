"""A v2 agent with a session store and no code for session/list, session/resume or
session/close: the store and the SDK answer them (tests/runtime/test_session_resume_v2.py runs
the conformance suite's session and lifecycle cases against it)."""

from __future__ import annotations

import asyncio
import uuid

from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v2 import models
from acp_protocol.v2.agent import Agent, AgentContext, run_agent


class StoreOnly(Agent):
    def __init__(self) -> None:
        self.session_store = SessionStore()

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse.model_validate(
            {"protocolVersion": 2, "info": {"name": "v2-store-agent", "version": "1"}}
        )

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=f"s_{uuid.uuid4().hex}")

    async def session_prompt(self, params: models.PromptRequest, ctx: AgentContext) -> str | None:
        update = {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"a-{ctx.message_id}",
            "content": {"type": "text", "text": "ok"},
        }
        await ctx.client.session_update(
            models.UpdateSessionNotification.model_validate(
                {"sessionId": params.session_id, "update": update}
            )
        )
        return None


if __name__ == "__main__":
    asyncio.run(run_agent(StoreOnly()))
