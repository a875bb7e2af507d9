// One stdio agent (NDJSON) speaking ACP v1 and the v2 draft, built on the official TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0): its `AgentProtocolRouter` reads the first valid `initialize`
// and hands the connection to the v1 agent below or to the v2 agent of ts_v2_agent.mjs.
//
// From dist/protocol-router.d.ts, all done by the SDK: "The router reads messages until a valid
// `initialize` request arrives. Before that, notifications and responses are ignored, other
// requests get `-32600`, a JSON array ... gets a single `-32600` with `id: null` ... Endpoints
// exposing v2 select the highest configured version at or below the requested version." It
// "never re-routes a connection".
//
// The v1 agent behaves like ts_agent.mjs for the prompts the v1 interop client sends:
//   "stream": three agent_message_chunk updates ("one ", "two ", "three"), then end_turn;
//   "slow":   one chunk, then waits until the prompt is cancelled: by `$/cancel_request` (-32800)
//             or by `session/cancel` (stopReason "cancelled");
//   "info":   the three session_info_update of tests/interop/test_interop_typescript.py;
//   anything else: stopReason "refusal".
// Nothing but protocol goes to stdout; diagnostics go to stderr.
import { Readable, Writable } from "node:stream";
import * as acpV1 from "@agentclientprotocol/sdk";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { buildV2Agent } from "./ts_v2_agent.mjs";

const V1_AGENT_NAME = "ts-router-v1-agent";

function buildV1Agent() {
  const sessionCancels = new Map(); // sessionId -> AbortController of its running prompt
  let nextSession = 1;
  const update = (sessionId, u) => ({ sessionId, update: u });
  const chunk = (sessionId, text) =>
    update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

  return acpV1
    .agent({ name: V1_AGENT_NAME })
    .onRequest(acpV1.methods.agent.initialize, async () => ({
      protocolVersion: acpV1.PROTOCOL_VERSION, // 1
      agentCapabilities: {},
      agentInfo: { name: V1_AGENT_NAME, version: "2.4.0" },
    }))
    .onRequest(acpV1.methods.agent.session.new, async () => ({
      sessionId: `ts-router-v1-${nextSession++}`,
    }))
    .onRequest(acpV1.methods.agent.session.prompt, async (ctx) => {
      const { sessionId, prompt } = ctx.params;
      const send = (params) => ctx.client.notify(acpV1.methods.client.session.update, params);
      const text = prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      if (text === "stream") {
        for (const part of ["one ", "two ", "three"]) await send(chunk(sessionId, part));
        return { stopReason: "end_turn" };
      }
      if (text === "info") {
        await send(
          update(sessionId, {
            sessionUpdate: "session_info_update",
            title: "Interop title",
            _meta: { trace: { step: 1, tags: ["a", "b"] } },
          }),
        );
        await send(update(sessionId, { sessionUpdate: "session_info_update", title: null }));
        await send(
          update(sessionId, {
            sessionUpdate: "session_info_update",
            updatedAt: "2026-11-21T12:00:00Z",
            _meta: null,
          }),
        );
        return { stopReason: "end_turn" };
      }
      if (text === "slow") {
        const sessionCancel = new AbortController();
        sessionCancels.set(sessionId, sessionCancel);
        await send(chunk(sessionId, "working"));
        const by = await new Promise((resolve) => {
          if (ctx.signal.aborted) resolve("request");
          ctx.signal.addEventListener("abort", () => resolve("request"), { once: true });
          sessionCancel.signal.addEventListener("abort", () => resolve("session"), { once: true });
        });
        sessionCancels.delete(sessionId);
        if (by === "request") throw ctx.signal.reason; // RequestError -32800 {requestId}
        return { stopReason: "cancelled" }; // v1 prompt-turn: session/cancel → "cancelled"
      }
      return { stopReason: "refusal" };
    })
    .onNotification(acpV1.methods.agent.session.cancel, async (ctx) => {
      sessionCancels.get(ctx.params.sessionId)?.abort("session/cancel");
    });
}

const router = acp.agentProtocolRouter().withV1(buildV1Agent()).withV2(buildV2Agent());
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
await router.connect(stream).closed;
