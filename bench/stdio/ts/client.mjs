#!/usr/bin/env node
// Two-process bench client on the official TypeScript SDK: spawns the agent command after `--`,
// runs the phases of bench/stdio/schedule.py and prints the same JSON line as the Python clients.
// Usage: node client.mjs N node -- AGENT COMMAND...   or   node client.mjs N node -- URL
// (a remote agent: the SDK's experimental/http-client for http://, ws-client with ws for ws://).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const dash = process.argv.indexOf("--");
const N = Number(process.argv[2]);
const command = process.argv.slice(dash + 1);
const warm = Math.max(Math.floor(N / 10), 50);
const phases = [["warm", `flood ${warm}`, 0], ["warm2", `reads ${warm} 8`, 0],
  ["notify", `flood ${N}`, N], ["rt1", `reads ${N} 1`, N], ["rt64", `reads ${N} 64`, N]];
let updates = 0;
const app = acp
  .client({ name: "bench-ts-client" })
  .onNotification(acp.methods.client.session.update, () => { updates++; })
  .onRequest(acp.methods.client.fs.readTextFile, () => ({ content: "line one\nline two\n" }));
const remote = /^(https?|wss?):\/\//.test(command[0]);
let child = null;
let stream;
if (remote && command[0].startsWith("ws")) {
  const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
  const { WebSocket } = await import("ws");
  stream = createWebSocketStream(command[0], { WebSocket });
} else if (remote) {
  const { createHttpStream } = await import("@agentclientprotocol/sdk/experimental/http-client");
  stream = createHttpStream(command[0]);
} else {
  child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
}
const rates = { client: "ts-node" };
await app.connectWith(stream, async (agent) => {
  await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
  });
  const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
  for (const [name, text, count] of phases) {
    const before = updates;
    const started = process.hrtime.bigint();
    await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (name === "notify" && updates - before !== N) throw new Error(`saw ${updates - before} of ${N} updates`);
    if (count) rates[name] = Math.round(count / seconds);
  }
});
child?.stdin.end();
console.log(JSON.stringify(rates));
process.exit(0);
