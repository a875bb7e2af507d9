// ACP_TRACE's CPU cost per frame on the TypeScript runtime: notifications written by a
// connection to a sink that discards them, with and without ACP_TRACE, in bursts of 64 (then one
// event-loop turn) and alone (one turn each); the process's CPU (all threads, libuv's writes
// included) per frame, the difference being the recording's. Run after `make ts-build`:
//   node bench/acp_trace_cost/cost.mjs   (from the repository root)
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { Connection, StreamTransport } from "../../.build/typescript/dist/index.js";

const FRAMES = 64 * 400;
const FOLDER = mkdtempSync(join(tmpdir(), "acp-cost-"));
const quiet = { request: async () => null, received: () => undefined, notification: async () => undefined, cancelledResult: () => undefined };
const turn = () => new Promise((resolve) => setImmediate(resolve));

async function run(trace, burst) {
  if (trace) process.env.ACP_TRACE = join(FOLDER, "t-{n}.jsonl");
  else delete process.env.ACP_TRACE;
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const connection = new Connection(new StreamTransport(new PassThrough(), sink), () => quiet);
  delete process.env.ACP_TRACE;
  const params = { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello there" } } };
  const before = process.cpuUsage();
  for (let i = 0; i < FRAMES; i += burst) {
    for (let j = 0; j < burst; j++) void connection.notify("session/update", params);
    await turn();
  }
  await connection.close();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / FRAMES;
}

for (const burst of [64, 1]) {
  for (let warm = 0; warm < 2; warm++) await run(true, burst), await run(false, burst);
  const off = [], on = [];
  for (let round = 0; round < 5; round++) off.push(await run(false, burst)), on.push(await run(true, burst));
  const median = (xs) => xs.sort((a, b) => a - b)[2];
  const [a, b] = [median(off), median(on)];
  console.log(`typescript burst=${burst}: ${a.toFixed(2)} µs CPU/frame without, ${b.toFixed(2)} with: +${(b - a).toFixed(2)} µs`);
}
