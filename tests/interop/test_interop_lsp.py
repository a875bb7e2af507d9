"""The LSP dialect for real: Content-Length framing and `$/cancelRequest` against pygls 2.1.1
(PyPI, a real LSP implementation), over stdio, in both directions."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from acp_protocol.runtime import (
    CONTENT_LENGTH,
    LSP,
    CancelSignal,
    Connection,
    RequestCancelled,
    RequestOptions,
    spawn_process,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.lsp.client import LanguageClient

from tests.paths import ROOT

PYGLS_SERVER = str(ROOT / "tests" / "interop" / "pygls_server.py")
OUR_SERVER = str(ROOT / "tests" / "interop" / "lsp_server.py")
INITIALIZE: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": {}}


async def test_our_client_talks_to_pygls_and_cancels_a_slow_request() -> None:
    """`$/cancelRequest` is LSP's: pygls cancels its handler and answers RequestCancelled, which
    our graceful caller receives ("A request that got canceled still needs to return")."""
    transport = await spawn_process(sys.executable, PYGLS_SERVER)
    async with Connection(transport, dialect=LSP, framing=CONTENT_LENGTH) as server:
        result = await asyncio.wait_for(server.request("initialize", INITIALIZE), 30)
        assert result["serverInfo"]["name"] == "acp-codegen-fixture"
        await server.notify("initialized", {})
        assert await server.request("acp/echo", {"text": "hi"}) == {"echo": "hi"}
        signal = CancelSignal()
        slow = asyncio.create_task(server.request("acp/slow", {}, RequestOptions(cancel=signal)))
        await asyncio.sleep(0.3)
        signal.cancel()
        with pytest.raises(RequestCancelled):
            await asyncio.wait_for(slow, 10)
        await server.request("shutdown")
        await server.notify("exit")


async def test_a_pygls_client_cancels_a_slow_request_on_our_server() -> None:
    """Our LSP server reads pygls's Content-Length frames, and its `$/cancelRequest` makes our
    handler answer -32800, which pygls raises as `JsonRpcRequestCancelled`."""
    client = LanguageClient("acp-codegen-test-client", "v1")
    await client.start_io(sys.executable, OUR_SERVER)
    try:
        params = types.InitializeParams(capabilities=types.ClientCapabilities())
        result = await asyncio.wait_for(client.initialize_async(params), 30)
        assert result.server_info is not None
        assert result.server_info.name == "acp-codegen-runtime"
        slow = client.protocol.send_request_async("acp/slow", {}, msg_id="slow-1")
        await asyncio.sleep(0.3)
        client.cancel_request(types.CancelParams(id="slow-1"))
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(slow, 10)
        await asyncio.wait_for(client.shutdown_async(None), 10)
        client.exit(None)
    finally:
        await client.stop()  # type: ignore[no-untyped-call]
