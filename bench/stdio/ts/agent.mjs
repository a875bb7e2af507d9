#!/usr/bin/env node
// Two-process bench agent on the official TypeScript SDK (stdio). Prompt text selects the work:
//   "flood N"    N session/update agent_message_chunk notifications, then end_turn
//   "reads N K"  N fs/read_text_file requests to the client, K in flight, then end_turn
// With `--listen` it serves over the SDK's remote transport instead (AcpServer through its node
// adapter, ws for upgrades, 127.0.0.1, any port), prints its URL and stops at the end of stdin.
import { createServer } from "node:http";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const CHUNK = "The quick brown fox jumps over the lazy dog. ".repeat(4);
const app = acp
  .agent({ name: "bench-ts-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => ({ protocolVersion: params.protocolVersion }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "bench" }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt.filter((b) => b.type === "text").map((b) => b.text).join(" ");
    const [kind, a, b] = text.split(/\s+/);
    const sessionId = params.sessionId;
    if (kind === "flood") {
      const update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: CHUNK } };
      for (let i = 0; i < Number(a); i++) {
        await client.notify(acp.methods.client.session.update, { sessionId, update });
      }
    } else {
      let left = Number(a);
      const worker = async () => {
        while (left > 0) {
          left--;
          await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: "/bench/file.txt" });
        }
      };
      await Promise.all(Array.from({ length: Number(b) }, worker));
    }
    return { stopReason: "end_turn" };
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
  process.stdin.once("end", () => process.exit(0));
} else {
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  connection.closed.then(() => process.exit(0));
}
