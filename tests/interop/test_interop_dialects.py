"""The TypeScript runtime's MCP and LSP dialects against real peers over stdio, both directions.

- MCP: the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`, its low-level `Client` and
  `Server`; tests/interop/node/mcp_sdk_*.mjs) and our runtime with `dialect: MCP`
  (tests/typescript/interop_mcp.ts). MCP 2025-11-25: the canceller sends
  `notifications/cancelled {requestId, reason}`; the receiver SHOULD "Not send a response for the
  cancelled request"; "Both parties SHOULD log cancellation reasons".
- LSP: `vscode-jsonrpc`'s `createMessageConnection` over stdio with Content-Length framing
  (tests/interop/node/vscode_jsonrpc_*.mjs) and our runtime with `dialect: LSP` and
  `CONTENT_LENGTH` (tests/typescript/interop_lsp.ts). LSP 3.17: `$/cancelRequest {id}`; "A request
  that got canceled still needs to return from the server and send a response back"; `initialize`
  is never cancelled (until its result "the client must not send any additional requests or
  notifications to the server").

Each pair runs one program that spawns the other and prints one JSON report.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.interop.support import NODE_PEERS, node, our_ts_program, run_json_peer

PEER_PACKAGES = ("@modelcontextprotocol/sdk", "vscode-jsonrpc")


def peer_node() -> str:
    """node, with the pinned MCP SDK and vscode-jsonrpc installed; fails (never skips) otherwise."""
    program = node()
    for package in PEER_PACKAGES:
        if not (NODE_PEERS / "node_modules" / package).is_dir():
            pytest.fail(f"{package} is not installed: run `make test` (npm ci in {NODE_PEERS})")
    return program


async def run_pair(driver: list[str], server: list[str]) -> dict[str, Any]:
    """The `driver` program (its arguments, then the server's command line) against the `server`
    program, both on node; the driver's report."""
    program = peer_node()
    return await run_json_peer(program, *driver, program, *server)


def their(name: str) -> str:
    return str(NODE_PEERS / name)


async def test_mcp_sdk_client_cancels_our_slow_tool_call_and_gets_no_answer() -> None:
    report = await run_pair(
        [their("mcp_sdk_client.mjs")], [our_ts_program("interop_mcp"), "server"]
    )
    assert report["server"] == {"name": "acp-codegen-ts-mcp-server", "version": "1.0.0"}
    # Their client rejects at once with its own error and forgets the id.
    assert report["cancelled"] == {"error": "MCP error -32001: the user pressed stop"}
    # Our handler was aborted with their reason ("SHOULD log cancellation reasons").
    assert report["seen"] == [{"requestId": 1, "reason": "the user pressed stop"}]
    # "Not send a response": any answer would be "a response for an unknown message ID" there.
    assert report["errors"] == []
    assert report["ping"] == {}


async def test_our_mcp_client_cancels_the_sdk_servers_slow_tool_call() -> None:
    report = await run_pair(
        [our_ts_program("interop_mcp"), "client"], [their("mcp_sdk_server.mjs")]
    )
    assert report["protocolVersion"] == "2025-11-25"
    # No answer will come: our call fails at once with -32800, the id and reason in its data.
    assert report["cancelled"] == {
        "error": {
            "code": -32800,
            "data": {"requestId": 1, "sent": True, "reason": "the user pressed stop"},
        }
    }
    assert report["seen"] == [{"requestId": 1, "reason": "the user pressed stop"}]
    # The SDK sent no late answer (we would have reported "an answer to no request of ours").
    assert report["problems"] == []
    assert report["ping"] == {}


async def test_vscode_jsonrpc_client_cancels_our_slow_request_answered_32800_not_initialize() -> (
    None
):
    report = await run_pair(
        [their("vscode_jsonrpc_client.mjs")], [our_ts_program("interop_lsp"), "server"]
    )
    # vscode-jsonrpc sent `$/cancelRequest` for initialize too; we ignored it and answered.
    assert report["received"]["result"] == [
        "initialize",
        "$/cancelRequest",
        "initialized",
        "slow",
        "$/cancelRequest",
        "received",
    ]
    assert report["initialize"]["result"]["cancelled"] is False
    assert report["initialize"]["result"]["serverInfo"] == {"name": "acp-codegen-ts-lsp-server"}
    # "still needs to return from the server": -32800 (not -32802: the client asked for it).
    assert report["cancelled"] == {"error": {"code": -32800, "message": "Request cancelled"}}
    assert report["shutdown"] == {"result": None}
    assert report["exitCode"] == 0


async def test_our_lsp_client_cancels_the_vscode_jsonrpc_servers_slow_request_not_initialize() -> (
    None
):
    report = await run_pair(
        [our_ts_program("interop_lsp"), "client"], [their("vscode_jsonrpc_server.mjs")]
    )
    # No `$/cancelRequest` went out for initialize: their token was never cancelled.
    assert report["initialize"] == {
        "result": {
            "capabilities": {},
            "serverInfo": {"name": "vscode-jsonrpc-interop-server"},
            "tokenCancelled": False,
        }
    }
    # We waited for their answer to the cancelled request (graceful), and it was -32800.
    assert report["cancelled"] == {
        "error": {"code": -32800, "message": "cancelled at the client's request"}
    }
    assert report["shutdown"] == {"result": None}
    assert report["exitCode"] == 0
    assert report["problems"] == []
