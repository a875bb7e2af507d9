// A v1 agent on stdio for the cross-runtime replay test (tests/runtime/test_session_replay_runtimes.py):
// `node replay_agent.js DSN SCHEMA [HISTORY_LIMIT]` keeps its sessions in PostgreSQL and has no
// code for session/list, session/load or session/resume: the SDK answers them from the store.
// Each prompt "x" is answered after two chunks, "x:1" and "x:2".
import { randomUUID } from "node:crypto";
import { PostgresSessionStore } from "../src/runtime/session_postgres.js";
import { runAgent, type Agent } from "../src/v1/agent.js";

const [dsn = "", schema = "public", limit] = process.argv.slice(2);
const store = await PostgresSessionStore.open(dsn, { schema, poolSize: 2, ...(limit === undefined ? {} : { historyLimit: Number(limit) }) });
const agent: Agent = {
  sessionStore: store,
  async initialize(params) {
    return { protocolVersion: params.protocolVersion };
  },
  async sessionNew() {
    return { sessionId: `sess_${randomUUID().replaceAll("-", "")}` };
  },
  async sessionPrompt(params, ctx) {
    const first = params.prompt[0];
    const said = first !== undefined && first.type === "text" ? first.text : "";
    for (const part of [":1", ":2"]) {
      await ctx.client.sessionUpdate({
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: said + part } },
      });
    }
    return { stopReason: "end_turn" };
  },
};
await runAgent(agent);
await store.close();
