// An MCP client on the official MCP TypeScript SDK's low-level `Client` (@modelcontextprotocol/sdk,
// pinned in package.json). Usage: node mcp_sdk_client.mjs <server program> [args...]
// It spawns the server (ours: tests/typescript/interop_mcp.ts), calls its "slow" tool, cancels it
// once the server logs "slow started" (`notifications/cancelled` with a reason), waits for any late
// answer (the SDK reports one as "a response for an unknown message ID"), then asks the "seen" tool
// what the server saw, pings, and prints one JSON report.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, EmptyResultSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [program, ...args] = process.argv.slice(2);
const errors = [];
const client = new Client({ name: "mcp-sdk-interop-client", version: "1.0.0" }, { capabilities: {} });
client.onerror = (error) => errors.push(error.message);
let started;
const startedSlow = new Promise((resolve) => (started = resolve));
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  if (notification.params.data === "slow started") started();
});

await client.connect(new StdioClientTransport({ command: program, args, stderr: "inherit" }));
const controller = new AbortController();
const slow = client.request({ method: "tools/call", params: { name: "slow", arguments: {} } }, CallToolResultSchema, { signal: controller.signal });
await startedSlow;
controller.abort("the user pressed stop");
let cancelled;
try {
  cancelled = { result: await slow };
} catch (error) {
  cancelled = { error: error.message };
}
await new Promise((resolve) => setTimeout(resolve, 300)); // room for an answer that must not come
const seen = await client.request({ method: "tools/call", params: { name: "seen", arguments: {} } }, CallToolResultSchema);
const ping = await client.request({ method: "ping" }, EmptyResultSchema);
const report = {
  server: client.getServerVersion(),
  cancelled,
  seen: JSON.parse(seen.content[0].text),
  ping,
  errors,
};
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
