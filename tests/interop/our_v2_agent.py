"""An ACP v2 agent built on the generated `acp_protocol.v2.agent`, serving on stdio, for the
interop tests against the official TypeScript SDK's `experimental/v2` client
(tests/interop/node/ts_v2_client.mjs). With `--dual`, it serves this agent and the v1 interop
agent (our_agent.py) on one connection (`acp_protocol.agents.run_agents`).

The SDK carries out the v2 lifecycle (answer at insertion, `running` / `idle`, `session/cancel`,
`session/close`); this agent only does the work of a prompt:
- every word of the prompt comes back as one `agent_message_chunk`, after a short pause standing
  for the model's work (`ACP_V2_WORD_DELAY_MS`, default 30);
- a prompt mentioning "permission" first asks the client, and stops if not allowed;
- a prompt mentioning "title" sends two `session_info_update`s from the session store: a title
  and `_meta: {keep: 1, nested: {a: 1}}`, then `_meta: {keep: null, nested: {b: 2}}`; one
  mentioning "untitled" then a third, `title: null`.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
from pathlib import Path
from typing import Any

from acp_protocol.agents import run_agents
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v2 import models
from acp_protocol.v2.agent import Agent, AgentContext, run_agent

DELAY = float(os.environ.get("ACP_V2_WORD_DELAY_MS", "30")) / 1000
NAME = "acp-codegen-v2-interop-agent"


def update(session_id: str, body: dict[str, object]) -> models.UpdateSessionNotification:
    return models.UpdateSessionNotification.model_validate(
        {"sessionId": session_id, "update": body}
    )


class WordsAgent(Agent):
    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self.session_store = SessionStore()

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse.model_validate(
            {"protocolVersion": 2, "info": {"name": NAME, "version": "0"}}
        )

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        session_id = f"py2-{next(self._numbers)}"
        assert self.session_store is not None
        self.session_store.create(session_id, params.cwd)
        return models.NewSessionResponse(session_id=session_id)

    async def session_resume(
        self, params: models.ResumeSessionRequest, ctx: AgentContext
    ) -> models.ResumeSessionResponse:
        """With session/new, session/prompt, session/list (the store) and session/close (the
        SDK's): the whole baseline, so `capabilities.session` is advertised."""
        return models.ResumeSessionResponse()

    async def session_prompt(self, params: models.PromptRequest, ctx: AgentContext) -> str | None:
        text = " ".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        session_id = params.session_id
        if "permission" in text:
            answer = await ctx.client.session_request_permission(
                models.RequestPermissionRequest.model_validate(
                    {
                        "sessionId": session_id,
                        "title": "Run the tool?",
                        "options": [
                            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                        ],
                    }
                )
            )
            if answer.to_wire()["outcome"].get("outcome") != "selected":
                return "cancelled"
        if "title" in text:
            store = self.session_store
            assert store is not None
            changes: list[dict[str, Any]] = [
                {"title": "Words", "meta": {"keep": 1, "nested": {"a": 1}}},
                {"meta": {"keep": None, "nested": {"b": 2}}},
            ]
            if "untitled" in text:  # SessionInfoUpdate.title: "Set to null to clear."
                changes.append({"title": None})
            for change in changes:
                info = store.change(session_id, **change)
                if info is not None:
                    body = {"sessionUpdate": "session_info_update", **info}
                    await ctx.client.session_update(update(session_id, body))
        reply = f"a-{ctx.message_id}"
        for word in text.split():
            await asyncio.sleep(DELAY)
            chunk = {"type": "text", "text": word}
            body = {"sessionUpdate": "agent_message_chunk", "messageId": reply, "content": chunk}
            await ctx.client.session_update(update(session_id, body))
        return None


async def main() -> None:
    if "--dual" in sys.argv:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project root
        from tests.interop.our_agent import InteropAgent

        await run_agents(v1=InteropAgent(), v2=WordsAgent())
    else:
        await run_agent(WordsAgent())


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
