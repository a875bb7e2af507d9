"""docs/transports.md's `connect_remote`, against our v1 agent served over Streamable HTTP
(`url`) and then over WebSocket (the same URL as ws://), with a token."""

import asyncio
import uuid

from tests.docs.serving import MyAgent, MyClient, prompt_once, served

from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.v1.agent import http_app

token = uuid.uuid4().hex


async def main() -> None:
    async with served(http_app(MyAgent, HttpServerOptions(token=token))) as served_url:
        for url in (served_url, served_url.replace("http://", "ws://")):
            # FRAGMENT
                await prompt_once(conn, client)


asyncio.run(main())
