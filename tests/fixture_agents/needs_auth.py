"""A test agent that needs authentication and asks permission before its tool runs.

It offers two auth methods: `key` (an `env_var` method from newer schemas, which reads
`FIXTURE_KEY` from its environment) and `login` (the agent's own). `session/new` answers -32000
"Authentication required" until `authenticate` succeeds. Each prompt reports a tool call, asks
`session/request_permission`, and replies with the outcome.
"""

from __future__ import annotations

import asyncio
import os

from acp_protocol.runtime import RpcError
from acp_protocol.v1 import PROTOCOL_VERSION, models
from acp_protocol.v1.agent import Agent, AgentContext, run_agent


class NeedsAuth(Agent):
    def __init__(self) -> None:
        self.authenticated = False

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        env_var = {
            "type": "env_var",
            "id": "key",
            "name": "API key",
            "vars": [{"name": "FIXTURE_KEY"}],
        }
        login = {"id": "login", "name": "Log in", "description": "the agent's own login"}
        return models.InitializeResponse.model_validate(
            {"protocolVersion": PROTOCOL_VERSION, "authMethods": [env_var, login]}
        )

    async def authenticate(
        self, params: models.AuthenticateRequest, ctx: AgentContext
    ) -> models.AuthenticateResponse:
        if params.method_id == "key" and os.environ.get("FIXTURE_KEY"):
            self.authenticated = True
            return models.AuthenticateResponse()
        raise RpcError("Authentication failed", {"details": f"{params.method_id} did not work"})

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        if not self.authenticated:
            raise RpcError("Authentication required", {"details": "log in first"}, code=-32000)
        return models.NewSessionResponse(session_id="fixture-session")

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        call = models.SessionUpdateToolCall(
            session_update="tool_call", tool_call_id="t1", title="rm -rf build", status="pending"
        )
        await ctx.client.session_update(
            models.SessionNotification(session_id=params.session_id, update=call)
        )
        options = [
            models.PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
            models.PermissionOption(option_id="no", name="Reject", kind="reject_once"),
        ]
        asked = models.RequestPermissionRequest(
            session_id=params.session_id,
            tool_call=models.ToolCallUpdate(tool_call_id="t1", title="rm -rf build"),
            options=options,
        )
        answer = await ctx.client.session_request_permission(asked)
        outcome = answer.outcome
        said = (
            outcome.option_id
            if isinstance(outcome, models.RequestPermissionOutcomeSelected)
            else "none"
        )
        text = models.ContentBlockText(type="text", text=f"permission outcome: {said}")
        chunk = models.SessionUpdateAgentMessageChunk(
            session_update="agent_message_chunk", content=text
        )
        await ctx.client.session_update(
            models.SessionNotification(session_id=params.session_id, update=chunk)
        )
        return models.PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(NeedsAuth()))
