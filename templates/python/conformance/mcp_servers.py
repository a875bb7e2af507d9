"""MCP servers passed in `session/new` (layer: case family): a server of each transport the
agent supports is accepted, the session created. stdio is every v1 agent's baseline ("All
Agents MUST support this transport"); http and sse (v1) and every v2 transport only when the
agent's MCP capabilities advertise them (a case skips otherwise).

The stdio server the suite passes is real: this Python (`sys.executable`, an absolute path)
running a few lines that answer MCP's `initialize` and list no tools, so an agent that connects
at once finds a server. The http and sse servers name a local port nothing listens on: an agent
may refuse a server it cannot reach, so only a refusal as invalid params (-32602, the answer
to a transport not supported) or as an unknown method fails their cases.
"""

from __future__ import annotations

import sys
from typing import Any

from .behaviour import agent_capabilities, at, said, supported, unless_plain_session_fails, v1
from .cases import Case, Check, Context, Outcome, describe, error_code, failed, passed, skipped
from .data import EditionData, Quote
from .levels import level_of
from .steps import initialize, params

MCP_SERVER = """
import json, sys
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        continue
    if message["method"] == "initialize":
        asked = (message.get("params") or {}).get("protocolVersion", "2025-06-18")
        result = {"protocolVersion": asked, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "acp-conformance", "version": "1"}}
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    elif message["method"] == "tools/list":
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}
    elif message["method"] == "ping":
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
    else:
        error = {"code": -32601, "message": "Method not found"}
        answer = {"jsonrpc": "2.0", "id": message["id"], "error": error}
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""
"""An MCP server over stdio with no tools (what the suite's stdio server runs)."""
UNREACHABLE = "http://127.0.0.1:9/mcp"
"""A URL nothing serves (port 9, discard)."""
STDIO_V1_UNSTABLE = "McpServer/anyOf/3"
V1 = {
    "stdio": (
        "McpServer/anyOf/2",
        "Stdio transport configuration All Agents MUST support this " "transport.",
    ),
    "http": ("McpCapabilities/properties/http", "Agent supports `http` MCP servers."),
    "sse": ("McpCapabilities/properties/sse", "Agent supports `sse` MCP servers."),
}
STDIO_V1 = V1["stdio"]
V2 = {
    "stdio": ("McpCapabilities/properties/stdio", "Agent supports `stdio` MCP servers."),
    "http": ("McpCapabilities/properties/http", "Agent supports `http` MCP servers."),
}


def cases(edition: EditionData) -> list[Case]:
    if edition.prompt is None:
        return []
    found = []
    for transport, (pointer, text) in (V1 if v1(edition) else V2).items():
        if pointer == STDIO_V1[0] and edition.key.endswith("/unstable"):
            pointer = STDIO_V1_UNSTABLE  # the unstable schema lists an `acp` transport first
        quote = said(edition, pointer, text)
        level = level_of(quote.text)
        gate = "" if transport == "stdio" and v1(edition) else "advertised, "
        title = f"{gate}an MCP server over {transport} in session/new is accepted"
        if level == "informative":
            title += " (informative: the capability's text has no MUST or SHOULD)"
        found.append(
            Case(
                f"mcp_servers.{transport}_accepted", title, level, quote, _accepts(transport, quote)
            )
        )
    return found


def server(edition: EditionData, transport: str) -> dict[str, Any]:
    """The server the suite passes over `transport`."""
    name = f"conformance-{transport}"
    if transport == "stdio":
        stdio = {"name": name, "command": sys.executable, "args": ["-c", MCP_SERVER], "env": []}
        return stdio if v1(edition) else {"type": "stdio", **stdio}
    return {"type": transport, "name": name, "url": UNREACHABLE, "headers": []}


def advertised(edition: EditionData, result: dict[str, Any], transport: str) -> bool:
    caps = agent_capabilities(edition, result)
    if v1(edition):
        return transport == "stdio" or supported(at(caps, "mcpCapabilities", transport))
    return supported(at(caps, "session", "mcp", transport))


def _accepts(transport: str, quote: Quote) -> Check:
    async def check(ctx: Context) -> Outcome:
        result = await initialize(ctx)
        if not advertised(ctx.edition, result, transport):
            return skipped(f"the agent does not advertise MCP servers over {transport}")
        wire = {"cwd": ctx.workdir, "mcpServers": [server(ctx.edition, transport)]}
        answer = await ctx.call("session/new", params(ctx, "session/new", wire))
        created = answer.get("result")
        if type(created) is dict and type(created.get("sessionId")) is str:
            return passed()
        code = error_code(answer)
        if transport != "stdio" and code is not None and code not in (-32601, -32602):
            return passed(f"refused the unreachable {UNREACHABLE} with {describe(answer)}")
        await unless_plain_session_fails(ctx)
        return failed(f"session/new with an MCP server over {transport} was {describe(answer)}")

    return check
