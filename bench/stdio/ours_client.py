"""Two-process bench client on the generated typed layer: spawns the agent and measures.
Run: python ours_client.py N LOOP -- AGENT COMMAND…"""

from __future__ import annotations

from acp_protocol.runtime import run
from acp_protocol.v1 import PROTOCOL_VERSION, helpers, models
from acp_protocol.v1.client import Client, ClientContext, connect_remote, spawn_agent
from schedule import FILE_TEXT, arguments, measure


class BenchClient(Client):
    updates = 0

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        self.updates += 1

    async def fs_read_text_file(
        self, params: models.ReadTextFileRequest, ctx: ClientContext
    ) -> models.ReadTextFileResponse:
        return models.ReadTextFileResponse(content=FILE_TEXT)


async def main(n: int, loop: str, command: list[str]) -> None:
    client = BenchClient()
    capabilities = models.ClientCapabilities(fs=models.FileSystemCapabilities(read_text_file=True))
    remote = command[0].split("://")[0] in ("http", "https", "ws", "wss")
    opened = connect_remote(client, command[0]) if remote else spawn_agent(client, *command)
    async with opened as connection:
        agent = connection.agent
        init = models.InitializeRequest(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
        )
        await agent.initialize(init)
        new = await agent.session_new(models.NewSessionRequest(cwd="/", mcp_servers=[]))

        async def prompt(text: str) -> object:
            request = models.PromptRequest(
                session_id=new.session_id, prompt=[helpers.text_block(text)]
            )
            return await agent.session_prompt(request)

        await measure(f"ours-{loop}", n, prompt, lambda: client.updates)


if __name__ == "__main__":
    n, loop, command = arguments()
    run(main(n, loop, command), event_loop=loop)
