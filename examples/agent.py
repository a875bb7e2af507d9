"""An example ACP agent on the generated package: `python examples/agent.py` serves on stdio.

What it shows:
- a reply streamed in chunks (`session/update` `agent_message_chunk`), one word at a time;
- a session title (`session_info_update`) set after the first prompt and updated after each later
  one, computed by a `SessionStore` (which also answers `session/list`, with no code here);
- a nested request: a prompt `read PATH` reads the file through the client (`fs/read_text_file`);
  the nested request is cancelled with the prompt;
- both cancellations: `session/cancel` (the prompt answers `stopReason: "cancelled"`) and
  `$/cancel_request` (the prompt answers -32800): the last chunk says which.
A prompt `count N` counts slowly to N, long enough to try Ctrl-C in examples/client.py.
"""

from __future__ import annotations

import asyncio
import sys

from acp_protocol.runtime import run
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v1 import PROTOCOL_VERSION, models
from acp_protocol.v1.agent import Agent, AgentContext, run_agent

WORD_DELAY = 0.05  # seconds between streamed words: stands for the model's work


def text_chunk(session_id: str, text: str) -> models.SessionNotification:
    update = models.SessionUpdateAgentMessageChunk(content=models.ContentBlockText(text=text))
    return models.SessionNotification(session_id=session_id, update=update)


class ExampleAgent(Agent):
    session_store: SessionStore  # always set here

    def __init__(self) -> None:
        self.can_read_files = False
        self.session_store = SessionStore()  # SessionStore("sessions.db") survives restarts
        self.turns: dict[str, int] = {}  # session id → prompts answered
        self.first_prompt: dict[str, str] = {}

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        fs = params.client_capabilities.fs if params.client_capabilities else None
        self.can_read_files = bool(fs and fs.read_text_file)
        return models.InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_info=models.Implementation(name="acp-codegen-example-agent", version="0.1.0"),
        )

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        record = await self.session_store.anew_session(params.cwd)  # its id is never reissued
        session_id = record.session_id
        self.turns[session_id] = 0
        return models.NewSessionResponse(session_id=session_id)

    async def session_prompt(
        self, params: models.PromptRequest, ctx: AgentContext
    ) -> models.PromptResponse:
        session_id = params.session_id
        text = "".join(b.text for b in params.prompt if isinstance(b, models.ContentBlockText))
        try:
            reply = await self.reply_to(text, session_id, ctx)
            for word in reply.split():
                await ctx.client.session_update(text_chunk(session_id, word + " "))
                await asyncio.sleep(WORD_DELAY)
        except asyncio.CancelledError:
            # Graceful cancellation: updates may still go out before the answer. Re-raising
            # lets the generated layer answer: `cancelled` for session/cancel, -32800 for
            # $/cancel_request.
            source = ctx.cancel_source.value if ctx.cancel_source else "unknown"
            await ctx.client.session_update(text_chunk(session_id, f"[cancelled by {source}]"))
            raise
        finally:
            await self.retitle(session_id, text, ctx)
        return models.PromptResponse(stop_reason="end_turn")

    async def reply_to(self, text: str, session_id: str, ctx: AgentContext) -> str:
        if text.startswith("read ") and self.can_read_files:
            path = text.removeprefix("read ").strip()
            request = models.ReadTextFileRequest(session_id=session_id, path=path, limit=5)
            return (await ctx.client.fs_read_text_file(request)).content
        if text.startswith("count "):
            return " ".join(str(n) for n in range(1, int(text.split()[1]) + 1))
        return f"You said: {text}"

    async def retitle(self, session_id: str, text: str, ctx: AgentContext) -> None:
        """The title is the first prompt's first words, then it counts the turns."""
        turns = self.turns[session_id] = self.turns.get(session_id, 0) + 1
        first = self.first_prompt.setdefault(session_id, " ".join(text.split()[:5]))
        title = first if turns == 1 else f"{first} ({turns} turns)"
        update = await self.session_store.achange(session_id, title=title)  # None: unchanged
        if update is not None:
            notification = {"sessionId": session_id, "update": update}
            await ctx.client.session_update(models.SessionNotification.model_validate(notification))


if __name__ == "__main__":
    try:
        run(run_agent(ExampleAgent()))
    except KeyboardInterrupt:
        sys.exit(130)
