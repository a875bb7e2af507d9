#!/usr/bin/env node
// Field bench client on the official TypeScript SDK (bench/field.py runs it): spawns the agent
// after `--`, initializes, opens one session (`client().connectWith`: 2.4.0's client API, which
// replaced `ClientSideConnection`), runs WARM + TIMED prompt turns and prints one JSON line: per
// timed turn, the milliseconds from sending `session/prompt` to the first `agent_message_chunk`
// (`first`) and to the prompt's answer (`end`), and the chunks counted.
// Usage: node field_client.mjs WARM TIMED -- AGENT COMMAND...
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const dash = process.argv.indexOf("--");
const warm = Number(process.argv[2]);
const timed = Number(process.argv[3]);
const command = process.argv.slice(dash + 1);
let first = null;
let chunks = 0;
const app = acp
  .client({ name: "bench-field-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") {
      chunks++;
      first ??= process.hrtime.bigint();
    }
  });
const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const samples = { client: "official-ts", first: [], end: [], chunks: [] };
await app.connectWith(stream, async (agent) => {
  await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const { sessionId } = await agent.request(acp.methods.agent.session.new, {
    cwd: process.cwd(),
    mcpServers: [],
  });
  for (let turn = 0; turn < warm + timed; turn++) {
    first = null;
    chunks = 0;
    const started = process.hrtime.bigint();
    const answer = await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Say something." }],
    });
    const ended = process.hrtime.bigint();
    if (answer.stopReason !== "end_turn" || first === null) {
      throw new Error(`turn ${turn}: ${answer.stopReason}, ${chunks} chunks`);
    }
    if (turn >= warm) {
      samples.first.push(Number(first - started) / 1e6);
      samples.end.push(Number(ended - started) / 1e6);
      samples.chunks.push(chunks);
    }
  }
});
child.stdin.end();
console.log(JSON.stringify(samples));
process.exit(0);
