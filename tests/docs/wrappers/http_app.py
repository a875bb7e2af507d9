"""docs/transports.md's `http_app`, served by uvicorn on a free loopback port and prompted by our
v1 client over Streamable HTTP with the token the fragment requires."""

import asyncio
import os
import uuid

from tests.docs.serving import MyAgent, MyClient, prompt_once, served

from acp_protocol.v1 import models
from acp_protocol.v1.client import connect_remote

os.environ["ACP_TOKEN"] = uuid.uuid4().hex

# FRAGMENT


async def main() -> None:
    async with served(app) as url:
        client = MyClient()
        async with connect_remote(client, url, token=os.environ["ACP_TOKEN"]) as conn:
            await conn.agent.initialize(models.InitializeRequest(protocol_version=1))
            await prompt_once(conn, client)


asyncio.run(main())
