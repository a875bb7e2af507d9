// An LSP-style client on vscode-jsonrpc (pinned in package.json). Usage:
//   node vscode_jsonrpc_client.mjs <server program> [args...]
// It spawns the server (ours: tests/typescript/interop_lsp.ts) and speaks Content-Length frames:
// sends `initialize` and cancels it at once (vscode-jsonrpc sends `$/cancelRequest`; an LSP server
// answers anyway), then a "slow" request cancelled once the server logs "slow started", asks
// the server which methods it received ("received"), then shutdown and exit; prints one JSON report.
import { spawn } from "node:child_process";
import { CancellationTokenSource, createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";

const [program, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
let started;
const startedSlow = new Promise((resolve) => (started = resolve));
connection.onNotification("window/logMessage", (params) => {
  if (params.message === "slow started") started();
});
connection.listen();

async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    return { error: { code: error.code, message: error.message } };
  }
}

const initializing = new CancellationTokenSource();
const initialize = connection.sendRequest("initialize", { processId: null, rootUri: null, capabilities: {} }, initializing.token);
initializing.cancel();
const initialized = await outcome(initialize);
await connection.sendNotification("initialized", {});

const slowing = new CancellationTokenSource();
const slow = connection.sendRequest("slow", {}, slowing.token);
await startedSlow;
slowing.cancel();
const cancelled = await outcome(slow);

const received = await outcome(connection.sendRequest("received"));
const shutdown = await outcome(connection.sendRequest("shutdown"));
await connection.sendNotification("exit");
const [code] = await new Promise((resolve) => child.once("exit", (...exit) => resolve(exit)));
connection.dispose();
process.stdout.write(JSON.stringify({ initialize: initialized, cancelled, received, shutdown, exitCode: code }) + "\n");
