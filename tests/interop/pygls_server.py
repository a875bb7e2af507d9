"""A pygls 2.x language server (a real LSP peer): `acp/echo` answers at once, `acp/slow` waits
until cancelled. Run by tests/interop/test_interop_lsp.py over stdio (Content-Length framing)."""

from __future__ import annotations

import asyncio
from typing import Any

from pygls.lsp.server import LanguageServer

server = LanguageServer("acp-codegen-fixture", "v1")


@server.feature("acp/echo")
async def echo(params: Any) -> Any:
    return {"echo": getattr(params, "text", None)}


@server.feature("acp/slow")
async def slow(params: Any) -> Any:
    await asyncio.sleep(60)
    return {"done": True}


if __name__ == "__main__":
    server.start_io()
