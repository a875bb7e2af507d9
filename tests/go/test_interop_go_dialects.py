"""The Go runtime's MCP and LSP dialects against real peers over stdio, both directions: the
scenarios tests/interop/test_interop_dialects.py runs on the TypeScript runtime.

- MCP: the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`, its low-level `Client` and
  `Server`; tests/interop/node/mcp_sdk_*.mjs) and our Go runtime with `acp.Speaking(acp.MCP)`
  (tests/go/interop/mcp). MCP 2025-11-25: the canceller sends
  `notifications/cancelled {requestId, reason}`; the receiver SHOULD "Not send a response for the
  cancelled request"; "Both parties SHOULD log cancellation reasons".
- LSP: `vscode-jsonrpc`'s `createMessageConnection` over stdio with Content-Length framing
  (tests/interop/node/vscode_jsonrpc_*.mjs) and our Go runtime with `acp.Speaking(acp.LSP)` over
  the runtime's Content-Length framing (`acp.Stdio(acp.ContentLength)`, `acp.SpawnCommand(…,
  acp.ContentLength)`; tests/go/interop/lsp). LSP 3.17:
  `$/cancelRequest {id}`; "A request that got canceled still needs to return from the server and
  send a response back"; `initialize` is never cancelled.

Each pair runs one program that spawns the other and prints one JSON report.
"""

from __future__ import annotations

import pytest

from tests.go.support import go_program
from tests.interop.support import NODE_PEERS, node, run_json_peer

PEER_PACKAGES = ("@modelcontextprotocol/sdk", "vscode-jsonrpc")


def peer_node() -> str:
    """node, with the pinned MCP SDK and vscode-jsonrpc installed; fails (never skips) otherwise."""
    program = node()
    for package in PEER_PACKAGES:
        if not (NODE_PEERS / "node_modules" / package).is_dir():
            pytest.fail(f"{package} is not installed: run `make test` (npm ci in {NODE_PEERS})")
    return program


def their(name: str) -> list[str]:
    return [peer_node(), str(NODE_PEERS / name)]


async def test_mcp_sdk_client_cancels_our_go_servers_slow_tool_call_and_gets_no_answer() -> None:
    report = await run_json_peer(*their("mcp_sdk_client.mjs"), go_program("mcp"), "server")
    assert report["server"] == {"name": "acp-codegen-go-mcp-server", "version": "1.0.0"}
    # Their client rejects at once with its own error and forgets the id.
    assert report["cancelled"] == {"error": "MCP error -32001: the user pressed stop"}
    # Our handler's ctx ended with their reason ("SHOULD log cancellation reasons").
    assert report["seen"] == [{"requestId": 1, "reason": "the user pressed stop"}]
    # "Not send a response": any answer would be "a response for an unknown message ID" there.
    assert report["errors"] == []
    assert report["ping"] == {}


async def test_our_go_mcp_client_cancels_the_sdk_servers_slow_tool_call() -> None:
    report = await run_json_peer(go_program("mcp"), "client", *their("mcp_sdk_server.mjs"))
    assert report["protocolVersion"] == "2025-11-25"
    assert report["serverInfo"] == {"name": "mcp-sdk-interop-server", "version": "1.0.0"}
    # No answer will come: our call (with a Graceful ctx) fails at once with the ctx's cause.
    assert report["cancelled"] == {"error": "the user pressed stop", "reason": True}
    # The SDK's handler saw our notifications/cancelled with its reason (initialize was id 1).
    assert report["seen"] == [{"requestId": 2, "reason": "the user pressed stop"}]
    # And sent no late answer.
    assert report["answersToTheCancelled"] == 0
    assert report["ping"] == {}


async def test_vscode_jsonrpc_client_cancels_our_go_servers_slow_request_not_initialize() -> None:
    report = await run_json_peer(*their("vscode_jsonrpc_client.mjs"), go_program("lsp"), "server")
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
    assert report["initialize"]["result"]["serverInfo"] == {"name": "acp-codegen-go-lsp-server"}
    # "still needs to return from the server": -32800 (not -32802: the client asked for it).
    assert report["cancelled"] == {"error": {"code": -32800, "message": "Request cancelled"}}
    assert report["shutdown"] == {"result": None}
    assert report["exitCode"] == 0


async def test_our_go_lsp_client_cancels_the_vscode_jsonrpc_servers_slow_request() -> None:
    report = await run_json_peer(go_program("lsp"), "client", *their("vscode_jsonrpc_server.mjs"))
    # No `$/cancelRequest` went out for initialize: their token was never cancelled, and our
    # Graceful caller got the answer.
    assert report["initialize"] == {
        "result": {
            "capabilities": {},
            "serverInfo": {"name": "vscode-jsonrpc-interop-server"},
            "tokenCancelled": False,
        }
    }
    # We waited for their answer to the cancelled request (Graceful), and it was -32800.
    assert report["cancelled"] == {
        "error": {"code": -32800, "message": "cancelled at the client's request"}
    }
    assert report["shutdown"] == {"result": None}
    assert report["exitCode"] == 0
