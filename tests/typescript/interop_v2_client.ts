// A v2 client built on the generated TypeScript package, for the v2 interop tests. Usage:
//   node interop_v2_client.js <scenario> <agent program> [args...]
// It spawns the agent, initializes v2, opens a session, runs one scenario through the session view
// (`connection.session(id)`) and prints one JSON line with what it saw. Scenarios:
//   prompt      "hello big world": its messageId, the updates, the idle stop reason;
//   cancel      a long prompt, a second one while it runs (held), session/cancel after 2 chunks;
//   permission  "please ask permission": the handler waits for the agent's `$/cancel_request`
//               (sent when session/cancel cancels the work); what we answered is read off the wire;
//   close       a long prompt, session/close after 2 chunks: was the idle update in before its answer;
//   meta        "set title": the `_meta` of the session's info after v2's patch rule; session/list.
import { EMPTY_SESSION_INFO, RequestError, spawnTransport } from "../src/index.js";
import * as v2 from "../src/v2/index.js";
import { aborted, until } from "./support.js";

const [scenario, program, ...args] = process.argv.slice(2);
if (scenario === undefined || program === undefined) {
  process.stderr.write("usage: interop_v2_client <scenario> <agent program> [args...]\n");
  process.exit(2);
}
const LONG = Array.from({ length: 60 }, (_, i) => `word${i + 1}`).join(" ");
const written: Array<Record<string, unknown>> = [];
const permission = { requests: [] as unknown[], aborted: [] as unknown[] };

const client: v2.Client = {
  async sessionRequestPermission(_params, ctx) {
    // Waits for the agent's `$/cancel_request`; throwing then is answered with the edition's
    // cancel outcome (RequestPermissionOutcome `cancelled`).
    permission.requests.push(ctx.requestId);
    await aborted(ctx.signal);
    permission.aborted.push(ctx.requestId);
    throw ctx.signal.reason;
  },
};

async function outcome<R>(promise: Promise<R>): Promise<{ result: R } | { error: { code: number; data: unknown } }> {
  try {
    return { result: await promise };
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    return { error: { code: error.code, data: error.data ?? null } };
  }
}

type Session = ReturnType<v2.ClientConnection["session"]>;
const chunks = (session: Session): number => session.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length;
const text = (value: string): v2.ContentBlock[] => [{ type: "text", text: value }];

const transport = spawnTransport(program, args);
const write = transport.write.bind(transport);
transport.write = (frame: string) => {
  written.push(JSON.parse(frame) as Record<string, unknown>);
  return write(frame);
};
const connection = v2.connectClient(client, transport);
const agent = connection.agent;

const scenarios: Record<string, (session: Session) => Promise<Record<string, unknown>>> = {
  async prompt(session) {
    const messageId = await session.prompt(text("hello big world"));
    const idle = await session.idle(messageId);
    return { messageId, idle, updates: session.updates };
  },
  async cancel(session) {
    const first = outcome(session.prompt(text(LONG)));
    await until(() => chunks(session) >= 1, 10_000);
    const second = outcome(session.prompt(text("a second prompt while the first runs")));
    await until(() => chunks(session) >= 2, 10_000);
    await session.cancel();
    const idle = await session.idle();
    return { first: await first, second: await second, idle, updates: session.updates };
  },
  async permission(session) {
    const prompt = outcome(session.prompt(text("please ask permission")));
    await until(() => permission.requests.length > 0, 10_000);
    await session.cancel();
    const idle = await session.idle();
    await until(() => permission.aborted.length > 0, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [asked] = permission.requests;
    const answer = written.find((f) => f["id"] === asked && !("method" in f));
    return { prompt: await prompt, idle, permission, answer: answer ?? null };
  },
  async close(session) {
    const first = outcome(session.prompt(text(LONG)));
    await until(() => chunks(session) >= 2, 10_000);
    const closed = await agent.sessionClose({ sessionId: session.sessionId });
    // Updates are handed over in arrival order before an answer resumes its caller.
    const idleBeforeClose = session.state === "idle" ? session.stopReason : null;
    return { close: closed, idleBeforeClose, first: await first };
  },
  async meta(session) {
    const messageId = await session.prompt(text("set title"));
    const idle = await session.idle(messageId);
    let info = EMPTY_SESSION_INFO;
    for (const update of session.updates) {
      if (update.sessionUpdate === "session_info_update") info = v2.applySessionInfoUpdate(info, update);
    }
    const list = await agent.sessionList({});
    return { idle, info, list };
  },
};

const run = scenarios[scenario];
if (run === undefined) {
  process.stderr.write(`unknown scenario ${scenario}\n`);
  process.exit(2);
}
const initialize = await agent.initialize({ protocolVersion: v2.PROTOCOL_VERSION, info: { name: "acp-codegen-ts-v2-client", version: "0" }, capabilities: {} });
const { sessionId } = await agent.sessionNew({ cwd: process.cwd() });
const report = { initialize, sessionId, ...(await run(connection.session(sessionId))) };
process.stdout.write(JSON.stringify(report) + "\n");
await connection.close();
