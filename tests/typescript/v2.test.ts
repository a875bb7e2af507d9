// The v2 edition through its own typed layer: its own shapes (`info`, `messageId`), its own
// method table, no prompt turn rule (v2's session/prompt answers once the prompt is inserted; the
// agent's `sessionPrompt` is the work that follows).
import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryPair } from "../src/index.js";
import * as v2 from "../src/v2/index.js";
import { until } from "./support.js";

test("a v2 client and agent initialize, open a session and prompt in v2 shapes", async () => {
  const seen: v2.SessionUpdate[] = [];
  const agent: v2.Agent = {
    async initialize(params) {
      return { protocolVersion: params.protocolVersion, info: { name: "v2-agent", version: "0" } };
    },
    async sessionNew() {
      return { sessionId: "v2-session" };
    },
    async sessionPrompt() {
      return "end_turn";
    },
  };
  const client: v2.Client = {
    async sessionUpdate(params) {
      seen.push(params.update);
    },
  };
  const [left, right] = memoryPair();
  v2.connectAgent(agent, left);
  const connection = v2.connectClient(client, right);
  const init = await connection.agent.initialize({ protocolVersion: v2.PROTOCOL_VERSION, info: { name: "v2-client", version: "0" } });
  assert.equal(init.info.name, "v2-agent");
  const session = await connection.agent.sessionNew({ cwd: "/tmp" });
  const answer = await connection.agent.sessionPrompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "hi" }] });
  assert.deepEqual(Object.keys(answer), ["messageId"]);
  assert.equal(v2.AGENT_TURN_RULE, null);
  await until(() => seen.length === 3);
  // The prompt's answer is its insertion: the echo under that id, then the work's states.
  assert.deepEqual(seen[0], { sessionUpdate: "user_message", messageId: answer.messageId, content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(seen.slice(1), [
    { sessionUpdate: "state_update", state: "running" },
    { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
  ]);
  await connection.close();
});

test("a v2 message missing what v2 requires is refused with its pointer", () => {
  assert.throws(() => v2.decode.PromptResponse({}), (error: Error) => error.message === "/messageId: expected a required field");
});
