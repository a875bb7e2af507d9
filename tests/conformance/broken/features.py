"""The base agent (base.py) with the features the ACP behaviour cases look at, correct unless a
`FeatureBugs` flag says otherwise: `initialize` advertises `loadSession`, a prompt's turn is
kept as the session's history, and `session/load` of a session streams that history back (the
user's words as `user_message_chunk`, the answer's as `agent_message_chunk`) before its
answer. Each `features_*` fixture in this folder is this agent with one bug (or none).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from acp_protocol.runtime import (
    Connection,
    InvalidParams,
    MethodHandlers,
    RequestContext,
    open_stdio,
    run,
)
from acp_protocol.v1 import models

from tests.conformance.broken.base import Agent, Bugs, Tapped, checked, update


@dataclass(frozen=True)
class FeatureBugs:
    load_without_replay: bool = False
    """`session/load` is answered at once, the session's history never streamed back."""
    exits_on_unknown_field: bool = False
    """Params with a member their model does not name end the process (status 1)."""


class FeatureAgent(Agent):
    def __init__(self, bugs: FeatureBugs) -> None:
        super().__init__(Bugs())
        self.features = bugs
        self.history: dict[str, list[str]] = {}

    def handlers(self) -> MethodHandlers:
        handlers = super().handlers()
        handlers.requests["session/load"] = self.session_load
        return handlers

    def strict(self, params: Any, model: Any) -> Any:
        value = checked(params, model, self.bugs)
        if self.features.exits_on_unknown_field and getattr(value, "model_extra", None):
            os._exit(1)
        return value

    async def initialize(self, params: Any, ctx: RequestContext) -> Any:
        self.strict(params, models.InitializeRequest)
        result = await super().initialize(params, ctx)
        result["agentCapabilities"] = {"loadSession": True}
        return result

    async def session_new(self, params: Any, ctx: RequestContext) -> Any:
        self.strict(params, models.NewSessionRequest)
        created = await super().session_new(params, ctx)
        self.history[created["sessionId"]] = []
        return created

    async def session_prompt(self, params: Any, ctx: RequestContext) -> Any:
        request = self.strict(params, models.PromptRequest)
        words = " ".join(b.text for b in request.prompt if isinstance(b, models.ContentBlockText))
        self.history.setdefault(request.session_id, []).append(words)
        return await super().session_prompt(params, ctx)

    async def session_load(self, params: Any, ctx: RequestContext) -> Any:
        request = checked(params, models.LoadSessionRequest, self.bugs)
        session_id = request.session_id
        if session_id not in self.history:
            raise InvalidParams(f"no session {session_id}")
        if not self.features.load_without_replay:
            for words in self.history[session_id]:
                said = {"type": "text", "text": words}
                user = {"sessionUpdate": "user_message_chunk", "content": said}
                await ctx.notify("session/update", {"sessionId": session_id, "update": user})
                for word in words.split():
                    await ctx.notify("session/update", update(session_id, word))
        return {}


async def main(bugs: FeatureBugs) -> None:
    agent = FeatureAgent(bugs)
    transport = Tapped(await open_stdio(), agent.bugs, agent)
    async with Connection(transport, agent.handlers()) as connection:
        agent.connection = connection
        await connection.wait_closed()


def serve(bugs: FeatureBugs) -> None:
    run(main(bugs))
