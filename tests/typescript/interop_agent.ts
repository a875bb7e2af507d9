// An agent built on the generated TypeScript package (v1), serving on stdio, for the interop
// tests: it behaves like tests/interop/our_agent.py and tests/interop/node/ts_agent.mjs, so the
// same tests drive all three. What a prompt does depends on its text:
//   "stream": three agent_message_chunk updates ("one ", "two ", "three"), then end_turn;
//   "slow":   one chunk ("working"), then waits until cancelled: by `$/cancel_request` it is
//             answered -32800, by `session/cancel` stopReason "cancelled" (the generated layer);
//   "nested": asks the client for fs/read_text_file and waits for it (a cancel cascades to it);
//   "info":   three session_info_updates: a title with _meta, a cleared title, a cleared _meta.
// What it observed (each cancelled prompt, and by what) is appended as JSON lines to the file
// named by $ACP_INTEROP_EVENTS. With `--listen [token]` it serves over ACP's remote transport
// instead (HTTP and WebSocket on 127.0.0.1, a port the system picks; one agent per connection),
// prints its URL as one line, and stops at the end of its stdin.
import { appendFileSync } from "node:fs";
import { RequestError } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import { aborted, chunk, textOf } from "./support.js";

function record(event: Record<string, unknown>): void {
  const file = process.env["ACP_INTEROP_EVENTS"];
  if (file) appendFileSync(file, JSON.stringify(event) + "\n");
}

const INFO_UPDATES: v1.SessionUpdate[] = [
  { sessionUpdate: "session_info_update", title: "Interop title", _meta: { trace: { step: 1, tags: ["a", "b"] } } },
  { sessionUpdate: "session_info_update", title: null },
  { sessionUpdate: "session_info_update", updatedAt: "2026-11-21T12:00:00Z", _meta: null },
];

let sessions = 0;

const agent: v1.Agent = {
  async initialize(params) {
    return { protocolVersion: params.protocolVersion, agentInfo: { name: "acp-codegen-ts-interop-agent", version: "0" } };
  },
  async sessionNew() {
    sessions += 1;
    return { sessionId: `ts-${sessions}` };
  },
  async sessionPrompt(params, ctx) {
    const text = textOf(params.prompt);
    const { sessionId } = params;
    if (text === "stream") {
      for (const part of ["one ", "two ", "three"]) await ctx.client.sessionUpdate(chunk(sessionId, part));
    } else if (text === "slow") {
      await ctx.client.sessionUpdate(chunk(sessionId, "working"));
      await aborted(ctx.signal);
      const byRequest = ctx.signal.reason instanceof RequestError;
      if (byRequest) record({ event: "cancel_request", requestId: ctx.requestId });
      record({ event: "prompt_cancelled", by: byRequest ? "request" : "session", requestId: ctx.requestId });
      throw ctx.signal.reason;
    } else if (text === "nested") {
      await ctx.client.fsReadTextFile({ sessionId, path: "/interop/held.txt" });
    } else if (text === "info") {
      for (const update of INFO_UPDATES) await ctx.client.sessionUpdate({ sessionId, update });
    }
    return { stopReason: "end_turn" };
  },
};

if (process.argv[2] === "--listen") {
  const token = process.argv[3];
  const listening = await v1.listenAgent(agent, token === undefined ? {} : { token });
  process.stdout.write(`${listening.url}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await listening.close();
} else {
  await v1.runAgent(agent);
}
