// An MCP server on the official MCP TypeScript SDK's low-level `Server` (@modelcontextprotocol/sdk,
// pinned in package.json), serving on stdio: the peer our TypeScript runtime's MCP dialect cancels
// a request of (tests/interop/test_interop_dialects.py). Its tools:
//   "slow": logs "slow started" (notifications/message), then waits until the client cancels it
//           (`notifications/cancelled` aborts `extra.signal`) and records the id and reason;
//   "seen": the cancellations recorded so far, as JSON text.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const seen = [];
const server = new Server({ name: "mcp-sdk-interop-server", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  if (request.params.name === "seen") return { content: [{ type: "text", text: JSON.stringify(seen) }] };
  await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "slow started" } });
  await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
  seen.push({ requestId: extra.requestId, reason: extra.signal.reason ?? null });
  return { content: [{ type: "text", text: "finished after its cancel (the SDK must not send this)" }] };
});

await server.connect(new StdioServerTransport());
