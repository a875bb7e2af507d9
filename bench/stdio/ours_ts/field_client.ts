// Field bench client on our generated TypeScript package (bench/field.py runs it): spawns the
// agent after `--` (`spawnAgent`), initializes, opens one session, runs WARM + TIMED prompt turns
// and prints one JSON line: per timed turn, the milliseconds from sending `session/prompt` to the
// first `agent_message_chunk` (`first`) and to the prompt's answer (`end`), and the chunks counted.
// Usage: node field_client.js WARM TIMED -- AGENT COMMAND...
import * as v1 from "../../src/v1/index.js";

const dash = process.argv.indexOf("--");
const warm = Number(process.argv[2]);
const timed = Number(process.argv[3]);
const [program, ...args] = process.argv.slice(dash + 1);
if (program === undefined) throw new Error("usage: field_client WARM TIMED -- AGENT COMMAND...");
let first: bigint | null = null;
let chunks = 0;
const client: v1.Client = {
  async sessionUpdate(params) {
    if (params.update.sessionUpdate === "agent_message_chunk") {
      chunks++;
      first ??= process.hrtime.bigint();
    }
  },
};
const connection = v1.spawnAgent(client, program, args);
await connection.agent.initialize({ protocolVersion: v1.PROTOCOL_VERSION, clientCapabilities: {} });
const { sessionId } = await connection.agent.sessionNew({ cwd: process.cwd(), mcpServers: [] });
const samples = { client: "ours-ts", first: [] as number[], end: [] as number[], chunks: [] as number[] };
for (let turn = 0; turn < warm + timed; turn++) {
  first = null;
  chunks = 0;
  const started = process.hrtime.bigint();
  const answer = await connection.agent.sessionPrompt({ sessionId, prompt: [{ type: "text", text: "Say something." }] });
  const ended = process.hrtime.bigint();
  const seen: bigint | null = first;
  if (answer.stopReason !== "end_turn" || seen === null) throw new Error(`turn ${turn}: ${answer.stopReason}, ${chunks} chunks`);
  if (turn >= warm) {
    samples.first.push(Number(seen - started) / 1e6);
    samples.end.push(Number(ended - started) / 1e6);
    samples.chunks.push(chunks);
  }
}
await connection.close();
console.log(JSON.stringify(samples));
process.exit(0);
