"""Field bench client on our generated Python typed layer (`acp_protocol.v1.client`): spawns the
agent after `--`, initializes, opens one session, runs WARM + TIMED prompt turns and prints one
JSON line: per timed turn, the milliseconds from sending `session/prompt` to the first
`agent_message_chunk` (`first`) and to the prompt's answer (`end`), and the chunks it counted.
Run: python ours_client.py WARM TIMED -- AGENT COMMAND…"""

from __future__ import annotations

import json
import os
import sys
import time

from acp_protocol.runtime import run
from acp_protocol.v1 import PROTOCOL_VERSION, helpers, models
from acp_protocol.v1.client import Client, ClientContext, spawn_agent

PROMPT = "Say something."


class FieldClient(Client):
    def __init__(self) -> None:
        self.first: int | None = None
        self.chunks = 0

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        if isinstance(params.update, models.SessionUpdateAgentMessageChunk):
            self.chunks += 1
            if self.first is None:
                self.first = time.perf_counter_ns()


async def main(warm: int, timed: int, command: list[str]) -> None:
    client = FieldClient()
    first: list[float] = []
    end: list[float] = []
    chunks: list[int] = []
    async with spawn_agent(client, *command) as connection:
        agent = connection.agent
        init = models.InitializeRequest(
            protocol_version=PROTOCOL_VERSION, client_capabilities=models.ClientCapabilities()
        )
        await agent.initialize(init)
        new = await agent.session_new(models.NewSessionRequest(cwd=os.getcwd(), mcp_servers=[]))
        for turn in range(warm + timed):
            client.first, client.chunks = None, 0
            request = models.PromptRequest(
                session_id=new.session_id, prompt=[helpers.text_block(PROMPT)]
            )
            started = time.perf_counter_ns()
            answer = await agent.session_prompt(request)
            ended = time.perf_counter_ns()
            if answer.stop_reason != "end_turn" or client.first is None:
                raise SystemExit(f"turn {turn}: {answer.stop_reason}, {client.chunks} chunks")
            if turn >= warm:
                first.append((client.first - started) / 1e6)
                end.append((ended - started) / 1e6)
                chunks.append(client.chunks)
    print(json.dumps({"client": "ours-python", "first": first, "end": end, "chunks": chunks}))


if __name__ == "__main__":
    dash = sys.argv.index("--")
    run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[dash + 1 :]))
