// A client built on the generated TypeScript package (v1), for the interop tests. Usage:
//   node interop_client.js <scenario> <agent program> [args...]
//   node interop_client.js <scenario> <http(s):// or ws(s):// URL of a remote agent>
// It spawns the agent, runs one scenario and prints one JSON line with what it saw: the same
// command line and report as tests/interop/node/ts_client.mjs (the official SDK's client), so the
// same tests drive both.
import { CANCEL_REQUEST, RequestError } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import { aborted, until } from "./support.js";

const [scenario, program, ...args] = process.argv.slice(2);
if (scenario === undefined || program === undefined) {
  process.stderr.write("usage: interop_client <scenario> <agent program> [args...]\n");
  process.exit(2);
}

const problems: string[] = []; // e.g. an answer to a notification: there must be none
const seen = {
  updates: [] as v1.SessionUpdate[],
  cancelRequests: [] as unknown[],
  fsRequests: [] as unknown[],
  fsAborted: [] as unknown[],
};

const client: v1.Client = {
  async sessionUpdate(params) {
    seen.updates.push(params.update);
  },
  async fsReadTextFile(_params, ctx) {
    // Held until the agent cancels it; answered -32800 (the abort reason).
    seen.fsRequests.push(ctx.requestId);
    await aborted(ctx.signal);
    if (ctx.signal.reason instanceof RequestError) seen.cancelRequests.push(ctx.requestId);
    seen.fsAborted.push(ctx.requestId);
    throw ctx.signal.reason;
  },
};

async function outcome(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    return { result: await promise };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    return { error: { code: error.code, message: error.message, data: error.data ?? null } };
  }
}

function prompt(sessionId: string, text: string): v1.PromptRequest {
  return { sessionId, prompt: [{ type: "text", text }] };
}

type Scenario = (agent: v1.AgentPeer, sessionId: string) => Promise<Record<string, unknown>>;

const scenarios: Record<string, Scenario> = {
  async prompt(agent, sessionId) {
    const response = await agent.sessionPrompt(prompt(sessionId, "stream"));
    return { response, updates: seen.updates };
  },
  async cancel_request(agent, sessionId) {
    const controller = new AbortController();
    const call = outcome(agent.sessionPrompt(prompt(sessionId, "slow"), { signal: controller.signal }));
    await until(() => seen.updates.length > 0, 10_000);
    controller.abort("interop test");
    return { prompt: await call, updates: seen.updates };
  },
  async session_cancel(agent, sessionId) {
    const call = outcome(agent.sessionPrompt(prompt(sessionId, "slow")));
    await until(() => seen.updates.length > 0, 10_000);
    await agent.sessionCancel({ sessionId });
    return { prompt: await call, updates: seen.updates };
  },
  async cascade(agent, sessionId) {
    const controller = new AbortController();
    const call = outcome(agent.sessionPrompt(prompt(sessionId, "nested"), { signal: controller.signal }));
    await until(() => seen.fsRequests.length > 0, 10_000);
    controller.abort("interop test");
    return { prompt: await call, ...seen };
  },
  async stale_cancels(agent, sessionId) {
    // A cancel for a finished request (the first prompt, id 2) and for an id never sent.
    const first = await agent.sessionPrompt(prompt(sessionId, "stream"));
    await connection.connection.notify(CANCEL_REQUEST, { requestId: 2 });
    await connection.connection.notify(CANCEL_REQUEST, { requestId: 999 });
    const second = await agent.sessionPrompt(prompt(sessionId, "stream"));
    return { first, second, updates: seen.updates, problems };
  },
  async session_info(agent, sessionId) {
    const response = await agent.sessionPrompt(prompt(sessionId, "info"));
    return { response, updates: seen.updates };
  },
};

const run = scenarios[scenario];
if (run === undefined) {
  process.stderr.write(`unknown scenario ${scenario}\n`);
  process.exit(2);
}
// A URL is a remote agent (ACP's Streamable HTTP or WebSocket transport); anything else a program.
const onProblem = (problem: string): void => void problems.push(problem);
const connection = /^(https?|wss?):\/\//.test(program)
  ? await v1.connectRemoteAgent(client, program, { onProblem })
  : v1.spawnAgent(client, program, args, { onProblem });
const init = await connection.agent.initialize({ protocolVersion: v1.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true } } });
const session = await connection.agent.sessionNew({ cwd: process.cwd(), mcpServers: [] });
const report = { initialize: init, sessionId: session.sessionId, ...(await run(connection.agent, session.sessionId)) };
process.stdout.write(JSON.stringify(report) + "\n");
await connection.close();
