"""Our runtime as an LSP server on stdio (LSP dialect, Content-Length framing): `initialize`,
`acp/slow` (waits until cancelled), `shutdown` and `exit`. Run by
tests/interop/test_interop_lsp.py under a pygls client."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_protocol.runtime import (
    CONTENT_LENGTH,
    LSP,
    Connection,
    MethodHandlers,
    RequestContext,
    open_stdio,
)


async def initialize(params: Any, ctx: RequestContext) -> Any:
    return {"capabilities": {}, "serverInfo": {"name": "acp-codegen-runtime"}}


async def slow(params: Any, ctx: RequestContext) -> Any:
    await asyncio.sleep(60)
    return {"done": True}


async def shutdown(params: Any, ctx: RequestContext) -> Any:
    return None


async def main() -> None:
    exited = asyncio.Event()

    async def exit_(params: Any) -> None:
        exited.set()  # LSP: "A notification to ask the server to exit its process"

    handlers = MethodHandlers(
        {"initialize": initialize, "acp/slow": slow, "shutdown": shutdown}, {"exit": exit_}
    )
    transport = await open_stdio()
    async with Connection(transport, handlers, dialect=LSP, framing=CONTENT_LENGTH) as connection:
        closed = asyncio.create_task(connection.wait_closed())
        await asyncio.wait(
            [closed, asyncio.create_task(exited.wait())], return_when="FIRST_COMPLETED"
        )


if __name__ == "__main__":
    asyncio.run(main())
