// An ACP client built on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0) that talks to
// a remote agent through the SDK's own transports: experimental/http-client (Streamable HTTP) for
// http:// URLs, experimental/ws-client (WebSocket; node 20 needs --experimental-websocket) for ws://.
// Usage: node [--experimental-websocket] ts_remote_client.mjs <scenario> <url>
// It runs one scenario against the agent (which behaves like tests/interop/our_agent.py) and prints
// one JSON line with what it saw.
import * as acp from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";

const [scenario, url] = process.argv.slice(2);
const stream = url.startsWith("ws")
  ? createWebSocketStream(url, { WebSocket: globalThis.WebSocket })
  : createHttpStream(url);

const seen = { updates: [], fsRequests: [], fsAborted: [] };
const waiters = [];
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
  .client({ name: "ts-remote-interop-client" })
  .onNotification(acp.methods.client.session.update, async (ctx) => {
    seen.updates.push(ctx.params.update);
    observe();
  })
  .onRequest(acp.methods.client.fs.readTextFile, async (ctx) => {
    // Held until the agent cancels it (the cascade of a cancelled prompt).
    seen.fsRequests.push(ctx.requestId);
    observe();
    await new Promise((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener("abort", resolve, { once: true });
    });
    seen.fsAborted.push(ctx.requestId);
    throw ctx.signal.reason;
  });

async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    return { error: { code: error.code, message: error.message } };
  }
}

function prompt(agent, sessionId, text, options) {
  const params = { sessionId, prompt: [{ type: "text", text }] };
  return outcome(agent.request(acp.methods.agent.session.prompt, params, options));
}

const scenarios = {
  async prompt(agent, sessionId) {
    return { prompt: await prompt(agent, sessionId, "stream"), updates: seen.updates };
  },
  async cancel_request(agent, sessionId) {
    const controller = new AbortController();
    const call = prompt(agent, sessionId, "slow", { cancellationSignal: controller.signal });
    await until(() => seen.updates.length > 0);
    controller.abort("interop test");
    return { prompt: await call, updates: seen.updates };
  },
  async session_cancel(agent, sessionId) {
    const call = prompt(agent, sessionId, "slow");
    await until(() => seen.updates.length > 0);
    await agent.notify(acp.methods.agent.session.cancel, { sessionId });
    return { prompt: await call, updates: seen.updates };
  },
  async cascade(agent, sessionId) {
    const controller = new AbortController();
    const call = prompt(agent, sessionId, "nested", { cancellationSignal: controller.signal });
    await until(() => seen.fsRequests.length > 0);
    controller.abort("interop test");
    const result = await call;
    await until(() => seen.fsAborted.length > 0);
    return { prompt: result, ...seen };
  },
  async session_info(agent, sessionId) {
    return { prompt: await prompt(agent, sessionId, "info"), updates: seen.updates };
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
process.exit(0);
