// A v1 agent with a `sessionStore` and no code for load or resume (runtime/session_replay.ts), as
// the Python and Go runtimes': each session/update it sends is recorded before the turn's answer;
// session/load "MUST replay the entire conversation to the Client in the form of
// `session/update` notifications" (session-setup.mdx), past `historyLimit` its last updates and
// the drop in `_meta`; session/resume answers without a replay; a failed write is the turn's
// error, never an answered turn a replay would not show.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySessionStore, REPLAY_META, recordTimeout } from "../src/index.js";
import type * as v1 from "../src/v1/index.js";
import { chunk, connected, rejection, textOf } from "./support.js";

function talker(sessionStore: MemorySessionStore, own: Partial<v1.Agent> = {}): v1.Agent {
  return {
    sessionStore,
    async initialize(params) {
      return { protocolVersion: params.protocolVersion };
    },
    async sessionNew() {
      return { sessionId: "s1" };
    },
    async sessionPrompt(params, ctx) {
      for (const part of [":1", ":2"]) await ctx.client.sessionUpdate(chunk(params.sessionId, textOf(params.prompt) + part));
      return { stopReason: "end_turn" };
    },
    ...own,
  };
}

function listener(): { client: v1.Client; said: string[] } {
  const said: string[] = [];
  const client: v1.Client = {
    async sessionUpdate(params) {
      if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") said.push(params.update.content.text);
    },
  };
  return { client, said };
}

const prompt = (text: string): v1.PromptRequest => ({ sessionId: "s1", prompt: [{ type: "text", text }] });

test("another connection on the store loads the session (its updates in order) and resumes it", async () => {
  const store = new MemorySessionStore();
  const first = connected(talker(store), listener().client).clientSide;
  const init = await first.agent.initialize({ protocolVersion: 1 });
  assert.equal(init.agentCapabilities?.loadSession, true);
  assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.resume, {});
  await first.agent.sessionNew({ cwd: "/w", mcpServers: [] });
  assert.equal((await store.get("s1"))?.cwd, "/w");
  for (const text of ["a", "b"]) await first.agent.sessionPrompt(prompt(text));
  await first.close();
  const { client, said } = listener();
  const second = connected(talker(store), client).clientSide;
  await second.agent.initialize({ protocolVersion: 1 });
  assert.deepEqual(await second.agent.sessionLoad({ sessionId: "s1", cwd: "/w", mcpServers: [] }), {});
  assert.deepEqual(said, ["a:1", "a:2", "b:1", "b:2"]); // before the answer
  assert.deepEqual(await second.agent.sessionResume({ sessionId: "s1", cwd: "/w" }), {});
  assert.equal(said.length, 4);
  const unknown = await rejection(second.agent.sessionResume({ sessionId: "nope", cwd: "/w" }));
  assert.deepEqual([unknown.code, unknown.data], [-32002, { sessionId: "nope" }]);
  await second.close();
});

test("past historyLimit a load replays the last updates and says how many it dropped", async () => {
  const store = new MemorySessionStore({ historyLimit: 3 });
  const { client, said } = listener();
  const side = connected(talker(store), client).clientSide;
  await side.agent.sessionNew({ cwd: "/w", mcpServers: [] });
  for (const text of ["a", "b"]) await side.agent.sessionPrompt(prompt(text));
  said.length = 0;
  const loaded = await side.agent.sessionLoad({ sessionId: "s1", cwd: "/w", mcpServers: [] });
  assert.deepEqual(said, ["a:2", "b:1", "b:2"]);
  assert.deepEqual(loaded._meta?.[REPLAY_META], { replayed: 3, dropped: 1, limit: 3 });
  await side.close();
});

test("a store that cannot write makes the turn's answer -32603, not an answered turn", async () => {
  const store = new MemorySessionStore();
  store.appendUpdates = async () => {
    throw new Error("disk full");
  };
  const side = connected(talker(store), listener().client).clientSide;
  await side.agent.sessionNew({ cwd: "/w", mcpServers: [] });
  const failed = await rejection(side.agent.sessionPrompt(prompt("a")));
  assert.deepEqual([failed.code, failed.data], [-32603, { details: "session updates not recorded: disk full" }]);
  await side.close();
});

test("a store that does not answer fails the turn -32603 within the record timeout", async () => {
  const kept = recordTimeout.ms;
  recordTimeout.ms = 200;
  try {
    const store = new MemorySessionStore();
    store.appendUpdates = () => new Promise<void>(() => undefined); // a database hung
    const side = connected(talker(store), listener().client).clientSide;
    await side.agent.sessionNew({ cwd: "/w", mcpServers: [] });
    const started = Date.now();
    const failed = await rejection(side.agent.sessionPrompt(prompt("a")));
    assert.deepEqual([failed.code, failed.data], [-32603, { details: "session updates not recorded: the store did not answer within 0.2s" }]);
    assert.ok(Date.now() - started < 5_000);
    await side.close();
  } finally {
    recordTimeout.ms = kept;
  }
});

test("an agent's own sessionLoad wins; its updates are still recorded", async () => {
  const store = new MemorySessionStore();
  const own = { async sessionLoad() { return { _meta: { mine: true } }; } };
  const side = connected(talker(store, own), listener().client).clientSide;
  await side.agent.sessionNew({ cwd: "/w", mcpServers: [] });
  await side.agent.sessionPrompt(prompt("a"));
  assert.deepEqual(await side.agent.sessionLoad({ sessionId: "s1", cwd: "/w", mcpServers: [] }), { _meta: { mine: true } });
  assert.equal((await store.readUpdates("s1")).updates.length, 2);
  await side.close();
});
