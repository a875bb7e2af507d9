// Workload (s) on our generated TypeScript package (bench/client_state_ts.py runs it): what
// keeping the client state costs beside decoding the updates that feed it, measured as the Python
// row is (bench/client_state.py). The frames are bench/client_state.py's, one JSON-RPC
// `session/update` a line, read from FRAMES. Per run, interleaved, in this one process:
// - decode: each line parsed (`JSON.parse`) and its params checked by the generated decoder
//   (`decode.UpdateSessionNotification`), as the client's router does before anything sees them;
// - apply: the decoded params applied to a fresh `ClientState` of the v2 table (what the router
//   adds per update).
// Each phase starts from a collected heap (`node --expose-gc`: `gc()` before it, untimed), so
// neither pays for the garbage the other left; each pays for its own.
// Usage: node --expose-gc client_state.js FRAMES RUNS; prints {"decode": [s…], "apply": [s…]}
// (the first round warms up, untimed).
import { readFileSync } from "node:fs";
import { ClientState } from "../../src/index.js";
import * as v2 from "../../src/v2/index.js";

const [path, runsText] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: client_state FRAMES RUNS");
const runs = Number(runsText ?? "5");
const lines = readFileSync(path, "utf8").split("\n").filter((line) => line !== "");
const decoded = lines.map((line) => v2.decode.UpdateSessionNotification((JSON.parse(line) as { params: unknown }).params));
const METHOD = "session/update";
const collect = (globalThis as { gc?: () => void }).gc ?? ((): void => {});

const found: { decode: number[]; apply: number[] } = { decode: [], apply: [] };
let checked = 0;
for (let round = 0; round <= runs; round++) {
  collect();
  let started = process.hrtime.bigint();
  for (const line of lines) {
    checked += v2.decode.UpdateSessionNotification((JSON.parse(line) as { params: unknown }).params) === undefined ? 0 : 1;
  }
  const decode = Number(process.hrtime.bigint() - started) / 1e9;
  const state = new ClientState(v2.STATE_TABLE);
  collect();
  started = process.hrtime.bigint();
  for (const params of decoded) state.apply({ method: METHOD, params });
  const apply = Number(process.hrtime.bigint() - started) / 1e9;
  if (state.session("s-1").log.length > 0) throw new Error("an update of the workload was not applied");
  if (round === 0) continue;
  found.decode.push(decode);
  found.apply.push(apply);
}
if (checked !== lines.length * (runs + 1)) throw new Error("a frame was not decoded");
process.stdout.write(JSON.stringify(found) + "\n");
