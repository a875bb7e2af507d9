// One agent for v1 and v2 clients, built on the generated package's `serveAgents` (src/versions.ts),
// serving on stdio for the interop tests: a v1 client gets the v1 agent below (a "stream" prompt:
// three agent_message_chunk updates "one ", "two ", "three", then end_turn, as interop_agent.ts),
// a v2 client gets interop_v2_agent.ts's agent.
import * as v1 from "../src/v1/index.js";
import { runAgents } from "../src/versions.js";
import { v2Agent } from "./interop_v2_agent.js";
import { chunk } from "./support.js";

const NAME = "acp-codegen-ts-dual-agent";
let sessions = 0;

const v1Agent: v1.Agent = {
  async initialize() {
    return { protocolVersion: 1, agentInfo: { name: NAME, version: "0" } };
  },
  async sessionNew() {
    sessions += 1;
    return { sessionId: `dual-v1-${sessions}` };
  },
  async sessionPrompt(params, ctx) {
    for (const part of ["one ", "two ", "three"]) await ctx.client.sessionUpdate(chunk(params.sessionId, part));
    return { stopReason: "end_turn" };
  },
};

await runAgents({ v1: v1Agent, v2: { ...v2Agent, async initialize() { return { protocolVersion: 2, info: { name: NAME, version: "0" } }; } } });
