// Our runtime's LSP dialect and Content-Length framing as a real peer of vscode-jsonrpc, for
// tests/interop/test_interop_dialects.py. Usage:
//   node interop_lsp.js server                       an LSP-style server on stdio
//   node interop_lsp.js client <program> [args...]   spawns an LSP-style server and drives it
// LSP 3.17: `$/cancelRequest {id}`; "A request that got canceled still needs to return from the
// server and send a response back"; before the InitializeResult "the client must not send any
// additional requests or notifications to the server", so `initialize` is never cancelled.
import { CONTENT_LENGTH, Connection, LSP, RequestError, spawnTransport, stdioTransport, type Router, type Transport } from "../src/index.js";

const [mode, program, ...args] = process.argv.slice(2);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function outcomeOf(error: unknown): Record<string, unknown> {
  if (error instanceof RequestError) return { error: { code: error.code, message: error.message } };
  return { thrown: String(error) };
}

/** `transport`, with the method of every message read from it appended to `methods`. */
function recording(transport: Transport, methods: string[]): Transport {
  return {
    start(onFrame, ...rest) {
      const read = (frame: string): void => {
        try {
          const { method } = JSON.parse(frame) as { method?: unknown };
          if (typeof method === "string") methods.push(method);
        } catch {
          // not JSON: the connection answers it
        }
        onFrame(frame);
      };
      transport.start(read, ...rest);
    },
    write: (frame) => transport.write(frame),
    close: () => transport.close(),
    pause: () => transport.pause(),
    resume: () => transport.resume(),
  };
}

/** "initialize" answers after 300 ms with `cancelled`: whether its signal aborted (never, in LSP);
 * "slow" logs "slow started", waits until the client cancels it and fails with the abort's reason
 * (-32800); "received" answers the methods of the messages read so far; "shutdown" answers null;
 * "exit" ends the process. */
function serve(): void {
  let connection: Connection | undefined;
  const methods: string[] = [];
  const router: Router = {
    async request(request) {
      switch (request.method) {
        case "initialize":
          await sleep(300);
          return { capabilities: {}, serverInfo: { name: "acp-codegen-ts-lsp-server" }, cancelled: request.signal.aborted };
        case "slow":
          await connection?.notify("window/logMessage", { type: 3, message: "slow started" });
          await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
          throw request.signal.reason;
        case "received":
          return methods;
        case "shutdown":
          return null;
        default:
          throw RequestError.methodNotFound(request.method);
      }
    },
    received() {},
    async notification(method) {
      if (method === "exit") await connection?.close("exit");
    },
    cancelledResult() {
      return undefined;
    },
  };
  connection = new Connection(recording(stdioTransport(CONTENT_LENGTH), methods), () => router, { dialect: LSP, onProblem: (message) => process.stderr.write(`${message}\n`) });
  void connection.closed.then(() => process.exit(0));
}

/** Drives an LSP-style server: initialize cancelled at once (no `$/cancelRequest` goes out; the
 * answer still comes), "slow" cancelled once the server logs that it started (answered -32800),
 * shutdown; one JSON report. */
async function drive(command: string, commandArgs: string[]): Promise<void> {
  let started: () => void = () => undefined;
  const startedSlow = new Promise<void>((resolve) => (started = resolve));
  const problems: string[] = [];
  const router: Router = {
    async request(request) {
      throw RequestError.methodNotFound(request.method);
    },
    received() {},
    async notification(method, params) {
      const message = (params as { message?: unknown } | null)?.message;
      if (method === "window/logMessage" && message === "slow started") started();
    },
    cancelledResult() {
      return undefined;
    },
  };
  const transport = spawnTransport(command, commandArgs, { framing: CONTENT_LENGTH });
  const connection = new Connection(transport, () => router, { dialect: LSP, onProblem: (message) => problems.push(message) });
  const same = (value: unknown): unknown => value;
  const initializing = new AbortController();
  const initialize = connection.request("initialize", { processId: null, rootUri: null, capabilities: {} }, same, { signal: initializing.signal });
  initializing.abort();
  const initialized = await initialize.then((result) => ({ result }), outcomeOf);
  await connection.notify("initialized", {});
  const slowing = new AbortController();
  const slow = connection.request("slow", {}, same, { signal: slowing.signal });
  await startedSlow;
  slowing.abort();
  const cancelled = await slow.then((result) => ({ result }), outcomeOf);
  const shutdown = await connection.request("shutdown", undefined, same).then((result) => ({ result }), outcomeOf);
  await connection.notify("exit", undefined);
  await connection.close();
  const report = { initialize: initialized, cancelled, shutdown, exitCode: transport.child.exitCode, problems };
  process.stdout.write(JSON.stringify(report) + "\n");
}

if (mode === "server") serve();
else if (mode === "client" && program !== undefined) await drive(program, args);
else {
  process.stderr.write("usage: interop_lsp server | client <program> [args...]\n");
  process.exit(2);
}
