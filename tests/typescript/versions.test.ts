// One agent for v1 and v2 clients (`serveAgents`), and a client that asks for v2 and continues in
// the version the agent answers (`connectAgentVersions`): generated src/versions.ts over
// runtime/versions.ts, as the official SDK's AgentProtocolRouter behaves.
import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryPair } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import * as v2 from "../src/v2/index.js";
import { connectAgentVersions, serveAgents } from "../src/versions.js";
import { RawPeer, rejection } from "./support.js";
import { wordAgent } from "./v2_support.js";

const agentV1: v1.Agent = {
  async initialize() {
    return { protocolVersion: 1, agentInfo: { name: "dual-v1", version: "0" } };
  },
  async sessionNew() {
    return { sessionId: "from-v1" };
  },
};
const agentV2: v2.Agent = {
  ...wordAgent,
  async initialize() {
    return { protocolVersion: 2, info: { name: "dual-v2", version: "0" } };
  },
};

function dual(): { peer: RawPeer; chosen: Promise<{ protocol: string }> } {
  const [left, right] = memoryPair();
  const served = serveAgents({ v1: agentV1, v2: agentV2 }, left);
  return { peer: new RawPeer(right), chosen: served.chosen.then((c) => c.connection) };
}

test("before a valid initialize: notifications and responses are ignored, other requests answered -32600", async () => {
  const { peer } = dual();
  peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "x" } });
  peer.send({ jsonrpc: "2.0", id: 77, result: {} });
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/" } });
  assert.equal(((await peer.next((f) => f["id"] === 1))["error"] as { code: number }).code, -32600);
  // An initialize no version fits fails with -32022, and the connection stays open for another.
  peer.send({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: 0 } });
  const refused = (await peer.next((f) => f["id"] === 2))["error"] as { code: number; data: unknown };
  assert.deepEqual([refused.code, refused.data], [-32022, { requested: 0, supported: [1, 2] }]);
  peer.send({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: 1 } });
  const init = (await peer.next((f) => f["id"] === 3))["result"] as Record<string, unknown>;
  assert.equal(init["protocolVersion"], 1);
  assert.equal(peer.frames.filter((f) => f["id"] === 77).length, 0, "a response is never answered");
});

test("a v1 client is served by the v1 agent, a v2 (or newer) client by the v2 agent", async () => {
  for (const [asked, name, version, sessionId] of [
    [1, "dual-v1", 1, "from-v1"],
    [2, "dual-v2", 2, "v2-s1"],
    [3, "dual-v2", 2, "v2-s1"],
  ] as const) {
    const { peer, chosen } = dual();
    peer.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: asked, info: { name: "c", version: "0" } } });
    const init = (await peer.next((f) => f["id"] === 1))["result"] as { protocolVersion: number; agentInfo?: { name: string }; info?: { name: string } };
    assert.equal(init.protocolVersion, version);
    assert.equal((init.agentInfo ?? init.info)?.name, name);
    assert.equal((await chosen).protocol, `v${version}`);
    peer.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    assert.deepEqual((await peer.next((f) => f["id"] === 2))["result"], { sessionId });
  }
});

test("a client that asks for v2 continues in v1 when the agent answers v1", async () => {
  const seen: string[] = [];
  const clients = {
    v1: {
      client: { async sessionUpdate(params: v1.SessionNotification) { seen.push(`v1:${params.update.sessionUpdate}`); } },
      initialize: { clientCapabilities: { fs: { readTextFile: true } } },
    },
    v2: { client: {}, initialize: { info: { name: "versions-test", version: "0" } } },
  };
  const [left, right] = memoryPair();
  const agent: v1.Agent = {
    ...agentV1,
    async initialize(params) {
      // The one request carries each version's params: this v1 agent reads its own.
      assert.deepEqual(params.clientCapabilities?.fs, { readTextFile: true });
      return { protocolVersion: 1 };
    },
    async sessionPrompt(params, ctx) {
      await ctx.client.sessionUpdate({ sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } } });
      return { stopReason: "end_turn" };
    },
  };
  v1.connectAgent(agent, left);
  const connected = await connectAgentVersions(clients, right);
  assert.equal(connected.protocol, "v1");
  if (connected.protocol !== "v1") return;
  assert.equal(connected.initialize.protocolVersion, 1);
  const answer = await connected.connection.agent.sessionPrompt({ sessionId: "s", prompt: [{ type: "text", text: "x" }] });
  assert.deepEqual(answer, { stopReason: "end_turn" });
  assert.deepEqual(seen, ["v1:agent_message_chunk"]);
  await connected.connection.close();
});

test("the same client stays in v2 with a dual agent, and refuses a version it does not offer", async () => {
  const [left, right] = memoryPair();
  serveAgents({ v1: agentV1, v2: agentV2 }, left);
  const connected = await connectAgentVersions({ v2: { client: {}, initialize: { info: { name: "c", version: "0" } } } }, right);
  assert.equal(connected.protocol, "v2");
  if (connected.protocol === "v2") assert.equal(connected.initialize.info.name, "dual-v2");

  const [a, b] = memoryPair();
  v1.connectAgent(agentV1, a); // answers 1 to a client that offers only v2
  const error = await rejection(connectAgentVersions({ v2: { client: {}, initialize: { info: { name: "c", version: "0" } } } }, b));
  assert.deepEqual(error.data, { answered: 1, offered: [2] });
});
