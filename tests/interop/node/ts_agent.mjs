// An ACP agent built on the official TypeScript SDK (@agentclientprotocol/sdk 2.4.0), serving on
// stdio. The interop tests spawn it and drive it with our generated client. What a prompt does
// depends on its text:
//   "stream": three agent_message_chunk updates ("one ", "two ", "three"), then end_turn;
//   "slow":   one chunk, then waits until the prompt is cancelled:
//             by `$/cancel_request` (ctx.signal aborts): throws the abort reason, i.e. -32800;
//             by `session/cancel`: answers stopReason "cancelled" (prompt-turn.mdx);
//   "ask ...":  asks the client's permission (session/request_permission), then streams
//               "Allowed." or "Not allowed." (the `cancelled` outcome: stopReason "cancelled");
//   "read PATH": reads the first line of PATH (relative: to the session's cwd) through the client
//               (fs/read_text_file) and streams it back (what the starter agents do, for
//               tests/starters).
// What the agent observed (each `$/cancel_request`, how each slow prompt ended) is appended as JSON
// lines to the file named by $ACP_INTEROP_EVENTS, for the test to read.
// With `--listen` it serves over the SDK's own remote transport instead: `AcpServer`
// (experimental/server) through its node adapter (experimental/node), WebSocket upgrades by ws, on
// 127.0.0.1 and a port the system picks; it prints its URL as one line and stops at the end of stdin.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { isAbsolute, join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

function record(event) {
  if (process.env.ACP_INTEROP_EVENTS) {
    appendFileSync(process.env.ACP_INTEROP_EVENTS, JSON.stringify(event) + "\n");
  }
}

const sessionCancels = new Map(); // sessionId -> AbortController of its running prompt
const sessionCwds = new Map(); // sessionId -> the cwd of session/new
let nextSession = 1;

function chunk(sessionId, text) {
  return {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  };
}

const app = acp
  .agent({ name: "ts-interop-agent" })
  .onRequest(acp.methods.agent.initialize, async () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
    agentInfo: { name: "ts-interop-agent", version: "2.4.0" },
  }))
  .onRequest(acp.methods.agent.session.new, async (ctx) => {
    const sessionId = `ts-${nextSession++}`;
    sessionCwds.set(sessionId, ctx.params.cwd);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async (ctx) => {
    const { sessionId, prompt } = ctx.params;
    const text = prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
    if (text === "stream") {
      for (const part of ["one ", "two ", "three"]) {
        await ctx.client.notify(acp.methods.client.session.update, chunk(sessionId, part));
      }
      return { stopReason: "end_turn" };
    }
    if (text.startsWith("ask ") || text.startsWith("read ")) {
      let reply;
      if (text.startsWith("ask ")) {
        const { outcome } = await ctx.client.request(acp.methods.client.session.requestPermission, {
          sessionId,
          toolCall: { toolCallId: `ask-${ctx.requestId}`, title: text.slice("ask ".length) },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        });
        if (outcome.outcome === "cancelled") return { stopReason: "cancelled" };
        reply = outcome.optionId === "allow" ? "Allowed." : "Not allowed.";
      } else {
        const given = text.slice("read ".length).trim();
        const path = isAbsolute(given) ? given : join(sessionCwds.get(sessionId) ?? "", given);
        const read = { sessionId, path, limit: 1 };
        reply = (await ctx.client.request(acp.methods.client.fs.readTextFile, read)).content;
      }
      for (const word of reply.split(/\s+/).filter(Boolean)) {
        await ctx.client.notify(acp.methods.client.session.update, chunk(sessionId, `${word} `));
      }
      return { stopReason: "end_turn" };
    }
    if (text === "slow") {
      const sessionCancel = new AbortController();
      sessionCancels.set(sessionId, sessionCancel);
      await ctx.client.notify(acp.methods.client.session.update, chunk(sessionId, "working"));
      const outcome = await new Promise((resolve) => {
        if (ctx.signal.aborted) resolve("request");
        ctx.signal.addEventListener("abort", () => resolve("request"), { once: true });
        sessionCancel.signal.addEventListener("abort", () => resolve("session"), { once: true });
      });
      sessionCancels.delete(sessionId);
      record({ event: "prompt_cancelled", by: outcome, requestId: ctx.requestId });
      if (outcome === "request") {
        throw ctx.signal.reason; // RequestError -32800 {requestId}
      }
      return { stopReason: "cancelled" };
    }
    return { stopReason: "refusal" };
  })
  .onNotification(acp.methods.agent.session.cancel, async (ctx) => {
    sessionCancels.get(ctx.params.sessionId)?.abort("session/cancel");
  })
  .onNotification("*", async (ctx) => {
    // In v1 the SDK also hands `$/cancel_request` to the fallback after acting on it.
    if (ctx.method === acp.methods.protocol.cancelRequest) {
      record({ event: "cancel_request", requestId: ctx.params?.requestId });
    }
  });

if (process.argv[2] === "--listen") {
  const { AcpServer } = await import("@agentclientprotocol/sdk/experimental/server");
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await import("@agentclientprotocol/sdk/experimental/node");
  const { WebSocketServer } = await import("ws");
  const server = new AcpServer({ agent: app });
  const http = createServer(createNodeHttpHandler(server));
  http.on("upgrade", createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true })));
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  process.stdout.write(`http://127.0.0.1:${http.address().port}/acp\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await server.close();
  http.closeAllConnections();
  http.close();
} else {
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  await app.connect(stream).closed;
}
