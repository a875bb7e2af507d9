// ACP v2's `session/resume` answered from a session store by any process sharing it, with no code
// in the agent (runtime/session_replay.ts, session_resume.ts), rule by rule from the v2 schema's
// own text, as the Python runtime's (tests/runtime/test_session_resume_v2.py): what is asserted is
// exactly what the client receives on the wire. v2 has no `session/load`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySessionStore } from "../src/index.js";
import * as v2 from "../src/v2/index.js";
import { RawPeer } from "./support.js";
import { agentWithRawClient, labels, text, words } from "./v2_support.js";

type Frame = Record<string, unknown>;
const START = { type: "start" };

/** Says each word of a prompt as a chunk; with `gate`, waits on it before the last word. Knows
 * nothing of stores, resume or replay beyond the property. */
function talker(sessionStore: MemorySessionStore, gate: Promise<void> | null = null): v2.Agent {
  let made = 0;
  return {
    sessionStore,
    async initialize() {
      return { protocolVersion: 2, info: { name: "t", version: "1" } };
    },
    async sessionNew() {
      made += 1;
      return { sessionId: `sess-${made}-${Math.random().toString(36).slice(2)}` };
    },
    async sessionPrompt(params, ctx) {
      const all = words(params.prompt);
      for (const [number, word] of all.entries()) {
        if (gate !== null && number === all.length - 1) await gate;
        await ctx.client.sessionUpdate({ sessionId: ctx.sessionId, update: { sessionUpdate: "agent_message_chunk", messageId: `a-${ctx.messageId}`, content: { type: "text", text: word } } });
      }
      return undefined;
    },
  };
}

let ids = 100;

/** Sends a request; the frames from it up to and including its answer. */
async function call(peer: RawPeer, method: string, params: unknown): Promise<Frame[]> {
  const id = ids++;
  const from = peer.frames.length;
  peer.send({ jsonrpc: "2.0", id, method, params });
  await peer.next((f) => f["id"] === id && f["method"] === undefined);
  const frames = peer.frames.slice(from);
  return frames.slice(0, frames.findIndex((f) => f["id"] === id && f["method"] === undefined) + 1);
}

function serve(agent: v2.Agent): { connection: v2.AgentConnection; peer: RawPeer } {
  return agentWithRawClient(agent);
}

async function init(peer: RawPeer): Promise<Frame> {
  const frames = await call(peer, "initialize", { protocolVersion: 2, info: { name: "c", version: "1" } });
  return frames[frames.length - 1]["result"] as Frame;
}

/** A session a first process opened and ran `prompts` on, then lost. */
async function started(store: MemorySessionStore, prompts: string[]): Promise<string> {
  const { connection, peer } = serve(talker(store));
  await init(peer);
  const answer = await call(peer, "session/new", { cwd: "/work" });
  const sessionId = (answer[answer.length - 1]["result"] as { sessionId: string }).sessionId;
  for (const said of prompts) {
    const from = peer.frames.length;
    await call(peer, "session/prompt", { sessionId, prompt: text(said) });
    await peer.next((f) => peer.frames.indexOf(f) >= from && labels([f])[0].startsWith("update:state_update:idle"));
  }
  await connection.close();
  return sessionId;
}

/** Each frame as one word: a chunk its text, another update its kind (a state its state), an
 * answer `answer`, an error `error <code>`. */
function kinds(frames: Frame[]): string[] {
  return frames.map((f) => {
    if (f["method"] === undefined) return f["error"] === undefined ? "answer" : `error ${String((f["error"] as { code: number }).code)}`;
    const update = (f["params"] as { update: { sessionUpdate: string; state?: string; content?: { text?: string } } }).update;
    if (update.sessionUpdate === "agent_message_chunk") return String(update.content?.text);
    return update.state === undefined ? update.sessionUpdate : `${update.sessionUpdate} ${update.state}`;
  });
}

const resume = (sessionId: string, more: Frame = {}): Frame => ({ sessionId, cwd: "/work", ...more });

test("a store serves session/resume: the agent advertises the whole session baseline", async () => {
  // AgentCapabilities.session: "Supplying `{}` means the Agent supports the baseline session
  // methods: `session/new`, `session/list`, `session/resume`, `session/close`, `session/prompt`,
  // `session/cancel`, and `session/update`".
  const { connection, peer } = serve(talker(new MemorySessionStore()));
  assert.deepEqual((await init(peer))["capabilities"], { session: {} });
  await connection.close();
});

test("without replayFrom nothing is replayed and no marker is sent; a current state_update comes first", async () => {
  // ResumeSessionRequest.replayFrom: "Omitted and `null` are equivalent, and the Agent MUST NOT
  // replay previous conversation history." ReplayComplete: "The Agent MUST NOT send it when
  // `replayFrom` is omitted or `null`". ResumeSessionResponse: "The Agent MUST send a current
  // `state_update` after any requested history replay and before this response, even without replay".
  const store = new MemorySessionStore();
  const sessionId = await started(store, ["a b"]);
  const { connection, peer } = serve(talker(store));
  await init(peer);
  assert.deepEqual(kinds(await call(peer, "session/resume", resume(sessionId))), ["state_update idle", "answer"]);
  assert.deepEqual(kinds(await call(peer, "session/resume", resume(sessionId, { replayFrom: null }))), ["state_update idle", "answer"]);
  await connection.close();
});

test("replayFrom start replays all retained history, then replay_complete once, then the state", async () => {
  // ResumeSessionRequest.replayFrom: "Supplying `{ "type": "start" }` means the Agent MUST replay
  // all retained conversation history before responding." ReplayComplete: "exactly once [...]
  // after the last replayed update for that session and before the response". State updates are
  // snapshots, not history: "Resume MUST send a current-state snapshot after any replay".
  const store = new MemorySessionStore();
  const sessionId = await started(store, ["a b", "c"]);
  const { connection, peer } = serve(talker(store));
  await init(peer);
  const frames = await call(peer, "session/resume", resume(sessionId, { replayFrom: START }));
  assert.deepEqual(kinds(frames), ["user_message", "a", "b", "user_message", "c", "replay_complete", "state_update idle", "answer"]);
  await connection.close();
});

test("an empty replay still ends with replay_complete", async () => {
  // ReplayComplete: "exactly once [...] before the response, even for an empty replay".
  const store = new MemorySessionStore();
  const sessionId = await started(store, []);
  const { connection, peer } = serve(talker(store));
  await init(peer);
  assert.deepEqual(kinds(await call(peer, "session/resume", resume(sessionId, { replayFrom: START }))), ["replay_complete", "state_update idle", "answer"]);
  await connection.close();
});

test("a cursor the store cannot serve is -32602 and nothing is sent; an unknown session -32002", async () => {
  // ResumeSessionRequest.replayFrom: "Agents MUST reject unsupported cursor types or malformed
  // cursor values with `-32602` (Invalid params), rather than substituting another cursor or
  // resuming without replay."
  const store = new MemorySessionStore();
  const sessionId = await started(store, ["a"]);
  const { connection, peer } = serve(talker(store));
  await init(peer);
  for (const cursor of [{ type: "_acme_offset", offset: 3 }, { type: "messageId", id: "m1" }, { type: 5 }]) {
    assert.deepEqual(kinds(await call(peer, "session/resume", resume(sessionId, { replayFrom: cursor }))), ["error -32602"], JSON.stringify(cursor));
  }
  assert.deepEqual(kinds(await call(peer, "session/resume", resume("nobody", { replayFrom: START }))), ["error -32002"]);
  await connection.close();
});

test("live updates are held during the replay; the state of a work running here is running", async () => {
  // ReplayComplete: "After receiving the request, the Agent MUST hold live updates for the
  // session during replay." `replay_complete`: "Every update for the session between the
  // `session/resume` request and this update is replayed history. Every update after it is not."
  const store = new MemorySessionStore();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const { connection, peer } = serve(talker(store, gate));
  await init(peer);
  const made = await call(peer, "session/new", { cwd: "/work" });
  const sessionId = (made[made.length - 1]["result"] as { sessionId: string }).sessionId;
  await call(peer, "session/prompt", { sessionId, prompt: text("a live") });
  await peer.next((f) => kinds([f])[0] === "a");
  const read = store.readUpdates.bind(store);
  let reading!: () => void;
  const isReading = new Promise<void>((resolve) => (reading = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  store.readUpdates = async (id) => {
    reading();
    await released;
    return read(id);
  };
  const from = peer.frames.length;
  const resumed = call(peer, "session/resume", resume(sessionId, { replayFrom: START }));
  await isReading;
  open(); // the work says "live" while the replay is being read
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  await resumed;
  await peer.next((f) => peer.frames.indexOf(f) >= from && kinds([f])[0] === "live");
  const after = kinds(peer.frames.slice(from)).filter((kind) => !kind.startsWith("state_update idle"));
  assert.deepEqual(after.slice(0, 4), ["user_message", "a", "replay_complete", "state_update running"]);
  assert.deepEqual(after.slice(4).sort(), ["answer", "live"]);
  await connection.close();
});
