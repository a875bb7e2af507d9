// Our runtime's MCP dialect as a real peer of the official MCP TypeScript SDK, for
// tests/interop/test_interop_dialects.py. Usage:
//   node interop_mcp.js server                       an MCP server on stdio (the SDK's client drives it)
//   node interop_mcp.js client <program> [args...]   spawns an MCP server (the SDK's) and drives it
// Both speak MCP 2025-11-25's cancellation: `notifications/cancelled {requestId, reason}`; the
// receiver does "Not send a response for the cancelled request"; the sender "SHOULD ignore any
// response to the request that arrives afterward"; "Both parties SHOULD log cancellation reasons".
import { Connection, MCP, RequestError, spawnTransport, stdioTransport, type IncomingRequest, type Router } from "../src/index.js";

const [mode, program, ...args] = process.argv.slice(2);
const problems: string[] = []; // what the connection survived: an answer to no request of ours would be one

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An MCP server with two tools: "slow" (logs "slow started", then waits to be cancelled and records
 * the id and reason) and "seen" (the cancellations recorded, as JSON text). */
function serve(): void {
  const seen: Array<{ requestId: unknown; reason: unknown }> = [];
  let connection: Connection | undefined;
  const tool = async (request: IncomingRequest): Promise<unknown> => {
    const params = isObject(request.params) ? request.params : {};
    if (params.name === "seen") return { content: [{ type: "text", text: JSON.stringify(seen) }] };
    await connection?.notify("notifications/message", { level: "info", data: "slow started" });
    await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
    const reason: unknown = request.signal.reason;
    const data = reason instanceof RequestError && isObject(reason.data) ? reason.data : {};
    seen.push({ requestId: request.id, reason: data.reason ?? null });
    throw reason;
  };
  const router: Router = {
    async request(request) {
      const params = isObject(request.params) ? request.params : {};
      switch (request.method) {
        case "initialize":
          return { protocolVersion: params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "acp-codegen-ts-mcp-server", version: "1.0.0" } };
        case "tools/call":
          return tool(request);
        case "ping":
          return {};
        default:
          throw RequestError.methodNotFound(request.method);
      }
    },
    received() {},
    async notification() {},
    cancelledResult() {
      return undefined;
    },
  };
  connection = new Connection(stdioTransport(), () => router, { dialect: MCP, onProblem: (message) => process.stderr.write(`${message}\n`) });
  void connection.closed.then(() => process.exit(0));
}

/** Drives an MCP server: initialize, a "slow" tool call cancelled once the server logs that it
 * started, a wait for a late answer that must not come, the "seen" tool, a ping; one JSON report. */
async function drive(command: string, commandArgs: string[]): Promise<void> {
  let started: () => void = () => undefined;
  const startedSlow = new Promise<void>((resolve) => (started = resolve));
  const router: Router = {
    async request(request) {
      throw RequestError.methodNotFound(request.method);
    },
    received() {},
    async notification(method, params) {
      if (method === "notifications/message" && isObject(params) && params.data === "slow started") started();
    },
    cancelledResult() {
      return undefined;
    },
  };
  const connection = new Connection(spawnTransport(command, commandArgs), () => router, { dialect: MCP, onProblem: (message) => problems.push(message) });
  const same = (value: unknown): unknown => value;
  const initialize = (await connection.request(
    "initialize",
    { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "acp-codegen-ts-mcp-client", version: "1.0.0" } },
    same,
  )) as Record<string, unknown>;
  await connection.notify("notifications/initialized", {});
  const controller = new AbortController();
  const slow = connection.request("tools/call", { name: "slow", arguments: {} }, same, { signal: controller.signal });
  await startedSlow;
  controller.abort("the user pressed stop");
  let cancelled: unknown;
  try {
    cancelled = { result: await slow };
  } catch (error) {
    cancelled = error instanceof RequestError ? { error: { code: error.code, data: error.data } } : { thrown: String(error) };
  }
  await new Promise((resolve) => setTimeout(resolve, 300)); // room for an answer that must not come
  const seen = (await connection.request("tools/call", { name: "seen", arguments: {} }, same)) as { content: Array<{ text: string }> };
  const ping = await connection.request("ping", {}, same);
  await connection.close();
  const report = { protocolVersion: initialize.protocolVersion, cancelled, seen: JSON.parse(seen.content[0]?.text ?? "null") as unknown, ping, problems };
  process.stdout.write(JSON.stringify(report) + "\n");
}

if (mode === "server") serve();
else if (mode === "client" && program !== undefined) await drive(program, args);
else {
  process.stderr.write("usage: interop_mcp server | client <program> [args...]\n");
  process.exit(2);
}
