// Two-process bench client on our generated TypeScript package: spawns the agent command after
// `--`, runs the phases of bench/stdio/schedule.py and prints the same JSON line as the other
// clients. Usage: node client.js N node -- AGENT COMMAND...   or   node client.js N node -- URL
// (a remote agent over ACP's Streamable HTTP or WebSocket transport: `connectRemoteAgent`).
import * as v1 from "../../src/v1/index.js";

const dash = process.argv.indexOf("--");
const N = Number(process.argv[2]);
const [program, ...args] = process.argv.slice(dash + 1);
if (program === undefined) throw new Error("usage: client N LOOP -- AGENT COMMAND...");
const warm = Math.max(Math.floor(N / 10), 50);
const phases: Array<[string, string, number]> = [
  ["warm", `flood ${warm}`, 0],
  ["warm2", `reads ${warm} 8`, 0],
  ["notify", `flood ${N}`, N],
  ["rt1", `reads ${N} 1`, N],
  ["rt64", `reads ${N} 64`, N],
];
let updates = 0;
const client: v1.Client = {
  async sessionUpdate() {
    updates++;
  },
  async fsReadTextFile() {
    return { content: "line one\nline two\n" };
  },
};
const connection = /^(https?|wss?):\/\//.test(program)
  ? await v1.connectRemoteAgent(client, program)
  : v1.spawnAgent(client, program, args);
const rates: Record<string, string | number> = { client: "ours-ts" };
await connection.agent.initialize({
  protocolVersion: v1.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
});
const { sessionId } = await connection.agent.sessionNew({ cwd: "/", mcpServers: [] });
for (const [name, text, count] of phases) {
  const before = updates;
  const started = process.hrtime.bigint();
  await connection.agent.sessionPrompt({ sessionId, prompt: [{ type: "text", text }] });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (name === "notify" && updates - before !== N) throw new Error(`saw ${updates - before} of ${N} updates`);
  if (count) rates[name] = Math.round(count / seconds);
}
await connection.close();
console.log(JSON.stringify(rates));
process.exit(0);
