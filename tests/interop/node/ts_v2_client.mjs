// An ACP v2 (draft) client built on the official TypeScript SDK's experimental v2 API
// (@agentclientprotocol/sdk 2.4.0, `@agentclientprotocol/sdk/experimental/v2`).
// Usage: ACP_V2_SCENARIO=<scenario> node ts_v2_client.mjs <agent program> [args...]
// It spawns the agent (NDJSON over its stdio), runs ONE scenario and prints one JSON line per
// observation on stdout, ending with {"event":"done"}; exit 0. On any failure: one line on stderr,
// exit 1. The spawned agent never outlives this process.
//
// Lines: {"event":"initialize",...InitializeResponse}, {"event":"session","sessionId"},
// {"event":"update",...SessionUpdate} for every update of the session in arrival order,
// {"event":"idle","stopReason"} after each idle `state_update`, {"event":"prompt","n","messageId"}
// or {"event":"error","method","n","code","message"} for the n-th prompt's answer, plus the
// scenario's own lines (below).
//
// Scenarios (env ACP_V2_SCENARIO):
//   version                    initialize (protocolVersion 2) only.
//   prompt                     prompt "hello big world", updates until idle.
//   cancel                     a long prompt; after the 1st agent chunk a 2nd prompt (held by the
//                              agent while the 1st runs); after the 2nd chunk `session/cancel`.
//   permission                 prompt "please ask permission"; the request_permission handler
//                              waits for its ctx.signal (the agent's `$/cancel_request`), then
//                              answers `cancelled`; `session/cancel` once the request arrived.
//                              {"event":"permission","cancelled_by_request":bool}.
//   permission_cancel_request  the same, and prints the answer the handler gave after the
//                              agent's `$/cancel_request`: {"event":"permission","outcome",...}.
//   permission_selected        (extra) prompt "please ask permission", the handler selects the
//                              "allow_once" option: the work continues to idle "end_turn".
//   close                      a long prompt; after 2 chunks `session/close`;
//                              {"event":"close"} and {"event":"close_order","idle_before_close"}.
//   meta                       prompt "set title"; applies each session_info_update's `_meta` by
//                              v2's top-level patch rule; {"event":"meta","value"},
//                              {"event":"title","value"}, then {"event":"list","sessions"}.
//
// The SDK does by itself: forcing protocolVersion 2 on the outgoing `initialize` and checking the
// answer is 2, waiting for `initialize` before other requests, routing a session's updates to the
// ActiveSession queue (idle `state_update` → a "stop" message), aborting a handler's ctx.signal
// on `$/cancel_request`, and resolving a -32002 answer to `session/close` as success.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

const CLIENT_NAME = "ts-v2-client";
const SCENARIO = process.env.ACP_V2_SCENARIO ?? "prompt";
const TIMEOUT_MS = Number(process.env.ACP_V2_CLIENT_TIMEOUT_MS ?? 20000);
/** How long to keep listening after the end of cancel/close to show nothing else arrives. */
const SETTLE_MS = Number(process.env.ACP_V2_SETTLE_MS ?? 200);
const LONG_PROMPT = Array.from({ length: 60 }, (_, i) => `word${i + 1}`).join(" ");

function emit(event) {
  process.stdout.write(JSON.stringify(event) + "\n");
}

let child;
function killChild() {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
function fail(message) {
  process.stderr.write(`${CLIENT_NAME} [${SCENARIO}]: ${message}\n`);
  killChild();
  process.exit(1);
}
process.on("exit", killChild);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => fail(`got ${signal}`));

const [program, ...args] = process.argv.slice(2);
if (!program) fail("usage: ACP_V2_SCENARIO=<scenario> node ts_v2_client.mjs <agent> [args...]");

let finishing = false;
child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
child.on("error", (error) => fail(`cannot run the agent: ${error.message}`));
child.on("exit", (code, signal) => {
  if (!finishing) fail(`the agent exited early (code ${code}, signal ${signal})`);
});
const timeout = setTimeout(() => fail(`timed out after ${TIMEOUT_MS} ms`), TIMEOUT_MS);

// -- the transport, tapped ------------------------------------------------------------------------
// The SDK dispatches notifications through async handlers but settles responses at once, so the
// order in which a handler runs is not the order of arrival. The tap sees the raw messages as
// they come off the wire: `arrivals` is the true arrival order (idle updates and responses).
const base = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const sentMethods = new Map(); // outgoing request id -> method
const arrivals = []; // {kind: "idle", sessionId, stopReason} | {kind: "response", method}
const outgoing = new TransformStream({
  transform(message, controller) {
    if (typeof message?.method === "string" && "id" in message) {
      sentMethods.set(message.id, message.method);
    }
    controller.enqueue(message);
  },
});
void outgoing.readable.pipeTo(base.writable).catch(() => {});
const incoming = base.readable.pipeThrough(
  new TransformStream({
    transform(message, controller) {
      const update = message?.params?.update;
      if (message?.method === "session/update" && update?.sessionUpdate === "state_update") {
        if (update.state === "idle") {
          arrivals.push({
            kind: "idle",
            sessionId: message.params.sessionId,
            stopReason: update.stopReason ?? null,
          });
        }
      } else if (message && !("method" in message) && "id" in message) {
        arrivals.push({ kind: "response", method: sentMethods.get(message.id) ?? null });
      }
      controller.enqueue(message);
    },
  }),
);
const stream = { readable: incoming, writable: outgoing.writable };

// -- what the client saw --------------------------------------------------------------------------
const seen = {
  agentChunks: 0,
  idles: [], // stop reasons, in order
  title: null, // SessionInfoUpdate.title: omitted = unchanged, null = cleared
  meta: null, // the session's stored `_meta`, patched by each session_info_update
  readerError: null,
  permission: {
    requests: 0,
    cancelledByRequest: null,
    answer: null,
  },
};
const waiters = []; // [predicate, resolve, reject, what]
function observe() {
  for (let i = 0; i < waiters.length; ) {
    const [predicate, resolve, reject, what] = waiters[i];
    if (predicate()) {
      waiters.splice(i, 1);
      resolve();
    } else if (seen.readerError) {
      waiters.splice(i, 1);
      reject(new Error(`${what}: ${seen.readerError}`));
    } else {
      i++;
    }
  }
}
function until(predicate, what) {
  return new Promise((resolve, reject) => {
    waiters.push([predicate, resolve, reject, what]);
    observe();
  });
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * v2's metadata patch rule (SessionInfoUpdate._meta): "Omitted leaves the stored metadata
 * unchanged. `null` clears it. An object patches the stored metadata by top-level key: keys it
 * omits are unchanged, a key set to `null` is removed, and any other value replaces that key's
 * stored value without merging nested objects."
 */
function applyMetaPatch(stored, patch) {
  if (patch === undefined) return stored;
  if (patch === null) return null;
  const next = { ...(stored ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * Reads the session's updates in arrival order (ActiveSession.nextUpdate: "Queued updates are
 * consumed in arrival order"), prints each, and applies the ones the client keeps state for.
 */
async function readUpdates(session) {
  for (;;) {
    let message;
    try {
      message = await session.nextUpdate();
    } catch (error) {
      seen.readerError = error?.message ?? String(error);
      observe();
      return;
    }
    const { update } = message;
    emit({ event: "update", sessionUpdate: update.sessionUpdate, ...update });
    if (update.sessionUpdate === "agent_message_chunk") seen.agentChunks++;
    if (update.sessionUpdate === "session_info_update") {
      // SessionInfoUpdate: "Omitted fields leave the existing session info unchanged. `null`
      // clears the corresponding value."
      if ("title" in update) seen.title = update.title;
      seen.meta = applyMetaPatch(seen.meta, update._meta);
    }
    if (message.kind === "stop") {
      // An idle snapshot "is not necessarily a new completion" — here each one ends the work.
      seen.idles.push(message.stopReason ?? null);
      emit({ event: "idle", stopReason: message.stopReason ?? null });
    }
    observe();
  }
}

/** Prints the n-th prompt's answer: its messageId, or the error. */
async function promptOutcome(n, promise) {
  try {
    const response = await promise;
    emit({ event: "prompt", n, messageId: response.messageId });
    return response;
  } catch (error) {
    emit({ event: "error", method: "session/prompt", n, code: error?.code ?? null, message: error?.message });
    return null;
  }
}

// -- client handlers ------------------------------------------------------------------------------
let giveUpPermission; // resolves when the scenario stops waiting for `$/cancel_request`
const permissionGivenUp = new Promise((resolve) => (giveUpPermission = resolve));

const app = acp
  .client({ name: CLIENT_NAME })
  .onRequest(acp.methods.client.session.requestPermission, async (ctx) => {
    seen.permission.requests++;
    emit({
      event: "permission_request",
      sessionId: ctx.params.sessionId,
      title: ctx.params.title,
      options: ctx.params.options.map((option) => ({ optionId: option.optionId, kind: option.kind })),
    });
    observe();
    if (!SCENARIO.startsWith("permission") || SCENARIO === "permission_selected") {
      // Select the first "allow" option (or the first option).
      const option =
        ctx.params.options.find((o) => String(o.kind).startsWith("allow")) ?? ctx.params.options[0];
      const answer = { outcome: { outcome: "selected", optionId: option.optionId } };
      emit({ event: "permission", ...answer.outcome });
      return answer;
    }
    // Wait for the agent to cancel this request with `$/cancel_request` (the SDK aborts
    // ctx.signal), then answer `cancelled`: RequestPermissionOutcome `cancelled`: "The client
    // answers a request the agent cancels with `$/cancel_request` with this outcome." If the agent
    // never cancels it, the scenario gives up after the idle update and answers `cancelled` anyway.
    await Promise.race([
      new Promise((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener("abort", resolve, { once: true });
      }),
      permissionGivenUp,
    ]);
    seen.permission.cancelledByRequest = ctx.signal.aborted;
    const answer = { outcome: { outcome: "cancelled" } };
    seen.permission.answer = answer;
    if (SCENARIO === "permission_cancel_request") {
      emit({ event: "permission", ...answer.outcome, after_cancel_request: ctx.signal.aborted });
    }
    observe();
    return answer;
  });

// -- scenarios ------------------------------------------------------------------------------------
const scenarios = {
  async prompt(agent, session) {
    const prompt = promptOutcome(1, session.prompt("hello big world"));
    await until(() => seen.idles.length >= 1, "waiting for idle");
    await prompt;
  },

  async cancel(agent, session) {
    const first = promptOutcome(1, session.prompt(LONG_PROMPT));
    await until(() => seen.agentChunks >= 1, "waiting for the 1st agent chunk");
    // Sent while the first prompt's work runs: the agent inserts it later or holds it;
    // `session/cancel` answers held prompts -32800 ("session/cancel or session/close answer held
    // prompts with -32800").
    const second = promptOutcome(2, session.prompt("a second prompt while the first runs"));
    await until(() => seen.agentChunks >= 2, "waiting for the 2nd agent chunk");
    await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    emit({ event: "cancel" });
    await until(() => seen.idles.length >= 1, "waiting for idle after session/cancel");
    await Promise.all([first, second]);
    await sleep(SETTLE_MS); // any update arriving now is printed after the idle line
  },

  async permission(agent, session) {
    const prompt = promptOutcome(1, session.prompt("please ask permission"));
    await until(() => seen.permission.requests >= 1, "waiting for session/request_permission");
    await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    emit({ event: "cancel" });
    await until(() => seen.idles.length >= 1, "waiting for idle after session/cancel");
    // The agent sends `$/cancel_request` before its idle update; allow a grace period anyway.
    setTimeout(giveUpPermission, SETTLE_MS);
    await until(() => seen.permission.answer !== null, "waiting for the permission handler");
    await prompt;
    emit({ event: "permission", cancelled_by_request: seen.permission.cancelledByRequest });
  },

  async permission_cancel_request(agent, session) {
    await scenarios.permission(agent, session);
  },

  async permission_selected(agent, session) {
    const prompt = promptOutcome(1, session.prompt("please ask permission"));
    await until(() => seen.idles.length >= 1, "waiting for idle");
    await prompt;
  },

  async close(agent, session) {
    const first = promptOutcome(1, session.prompt(LONG_PROMPT));
    await until(() => seen.agentChunks >= 2, "waiting for the 2nd agent chunk");
    await agent.request(acp.methods.agent.session.close, { sessionId: session.sessionId });
    emit({ event: "close" });
    await until(() => seen.idles.length >= 1, "waiting for idle after session/close");
    // CloseSessionRequest: "the Agent MUST send ... the idle `state_update` with `stopReason:
    // \"cancelled\"` before responding successfully to `session/close`."
    const idleAt = arrivals.findIndex(
      (a) => a.kind === "idle" && a.sessionId === session.sessionId && a.stopReason === "cancelled",
    );
    const closeAt = arrivals.findIndex((a) => a.kind === "response" && a.method === "session/close");
    emit({ event: "close_order", idle_before_close: idleAt !== -1 && idleAt < closeAt });
    await first;
    await sleep(SETTLE_MS); // "After the close response, the Agent sends no other messages for
    // the session": any update arriving now is printed after the close lines.
  },

  async meta(agent, session) {
    const prompt = promptOutcome(1, session.prompt("set title"));
    await until(() => seen.idles.length >= 1, "waiting for idle");
    await prompt;
    emit({ event: "meta", value: seen.meta });
    emit({ event: "title", value: seen.title });
    const list = await agent.request(acp.methods.agent.session.list, {});
    emit({ event: "list", sessions: list.sessions });
  },
};

const run = scenarios[SCENARIO];
if (SCENARIO !== "version" && run === undefined) fail(`unknown scenario ${SCENARIO}`);

try {
  await app.connectWith(stream, async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: 2,
      info: { name: CLIENT_NAME, version: "2.4.0" },
      capabilities: {},
    });
    emit({ event: "initialize", ...init });
    if (SCENARIO === "version") return;
    const session = await agent.buildSession(process.cwd()).start();
    emit({ event: "session", sessionId: session.sessionId });
    const reader = readUpdates(session);
    try {
      await run(agent, session);
    } finally {
      session.dispose(); // ends the reader
      await reader;
    }
  });
} catch (error) {
  // If the agent died, let its exit handler report that instead (it fails first).
  await Promise.race([new Promise((resolve) => child.once("exit", resolve)), sleep(200)]);
  const code = error?.code !== undefined ? ` (code ${error.code})` : "";
  fail(`${error?.message ?? error}${code}`);
}
emit({ event: "done" });

// Let the agent go: close its stdin, then kill it if it does not exit by itself.
finishing = true;
clearTimeout(timeout);
child.stdin.end();
const exited = new Promise((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else child.once("exit", resolve);
});
const killTimer = setTimeout(killChild, 2000);
await exited;
clearTimeout(killTimer);
