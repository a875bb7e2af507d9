// An ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0).
// Usage: node ts_client.mjs <scenario> <agent program> [args...]
// It spawns the agent, runs one scenario against it and prints one JSON line with what it saw.
// The agent is expected to behave like tests/interop/our_agent.py (prompt text picks the work).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [scenario, program, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const seen = { updates: [], cancelRequests: [], fsRequests: [], fsAborted: [] };
const waiters = []; // [predicate, resolve]
function observe() {
  for (const [index, [predicate, resolve]] of waiters.entries()) {
    if (predicate()) {
      waiters.splice(index, 1);
      resolve();
      return observe();
    }
  }
}
function until(predicate) {
  return predicate() ? Promise.resolve() : new Promise((resolve) => waiters.push([predicate, resolve]));
}

const app = acp
  .client({ name: "ts-interop-client" })
  .onNotification(acp.methods.client.session.update, async (ctx) => {
    seen.updates.push(ctx.params.update);
    observe();
  })
  .onRequest(acp.methods.client.fs.readTextFile, async (ctx) => {
    // Held until the agent cancels it; answered like the SDK does (-32800).
    seen.fsRequests.push(ctx.requestId);
    observe();
    await new Promise((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener("abort", resolve, { once: true });
    });
    seen.fsAborted.push(ctx.requestId);
    throw ctx.signal.reason;
  })
  .onNotification("*", async (ctx) => {
    // In v1 the SDK also hands `$/cancel_request` to the fallback after acting on it.
    if (ctx.method === acp.methods.protocol.cancelRequest) {
      seen.cancelRequests.push(ctx.params?.requestId);
      observe();
    }
  });

async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    return { error: { code: error.code, message: error.message, data: error.data ?? null } };
  }
}

const scenarios = {
  async prompt(agent, sessionId) {
    const response = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "stream" }],
    });
    return { response, updates: seen.updates };
  },
  async cancel_request(agent, sessionId) {
    const controller = new AbortController();
    const prompt = outcome(
      agent.request(
        acp.methods.agent.session.prompt,
        { sessionId, prompt: [{ type: "text", text: "slow" }] },
        { cancellationSignal: controller.signal },
      ),
    );
    await until(() => seen.updates.length > 0);
    controller.abort("interop test");
    return { prompt: await prompt, updates: seen.updates };
  },
  async session_cancel(agent, sessionId) {
    const prompt = outcome(
      agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "slow" }],
      }),
    );
    await until(() => seen.updates.length > 0);
    await agent.notify(acp.methods.agent.session.cancel, { sessionId });
    return { prompt: await prompt, updates: seen.updates };
  },
  async cascade(agent, sessionId) {
    const controller = new AbortController();
    const prompt = outcome(
      agent.request(
        acp.methods.agent.session.prompt,
        { sessionId, prompt: [{ type: "text", text: "nested" }] },
        { cancellationSignal: controller.signal },
      ),
    );
    await until(() => seen.fsRequests.length > 0);
    controller.abort("interop test");
    const result = await prompt;
    return { prompt: result, ...seen };
  },
  async stale_cancels(agent, sessionId) {
    // A cancel for a finished request (the first prompt, id 2) and for an id never sent.
    const first = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "stream" }],
    });
    await agent.notify(acp.methods.protocol.cancelRequest, { requestId: 2 });
    await agent.notify(acp.methods.protocol.cancelRequest, { requestId: 999 });
    const second = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "stream" }],
    });
    return { first, second, updates: seen.updates };
  },
  async session_info(agent, sessionId) {
    const response = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "info" }],
    });
    return { response, updates: seen.updates };
  },
};

const report = await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true } },
  });
  const session = await agent.request(acp.methods.agent.session.new, {
    cwd: process.cwd(),
    mcpServers: [],
  });
  const run = scenarios[scenario];
  if (run === undefined) throw new Error(`unknown scenario ${scenario}`);
  return { initialize: init, sessionId: session.sessionId, ...(await run(agent, session.sessionId)) };
});
process.stdout.write(JSON.stringify(report) + "\n");
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
