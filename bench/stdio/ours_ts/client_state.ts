// Workload (s) on our generated TypeScript package (bench/client_state_ts.py runs it): what
// keeping the client state costs beside decoding the updates that feed it, measured as the Python
// row is (bench/client_state.py). The frames are bench/client_state.py's, one JSON-RPC
// `session/update` a line, read from FRAMES. Per run, interleaved, in this one process:
// - decode: each line parsed (`JSON.parse`) and its params checked by the generated decoder
//   (`decode.UpdateSessionNotification`), as the client's router does before anything sees them;
// - apply: the decoded params applied to a fresh `ClientState` of the v2 table (what the router
//   adds per update).
// Each phase starts from a collected heap (`node --expose-gc`: `gc()` before it, untimed), so
// neither pays for the garbage the other left; each pays for its own. Each round's state is kept
// to the end, as a client keeps its state while connected: a state collected between rounds takes
// the hidden classes of its objects along, and with them the optimized code of `apply`, which the
// next round would then run unoptimized until compiled again (a cost a client pays once).
// Times are the process's CPU time (`process.cpuUsage`), not wall time: other processes on the
// machine change wall time, not CPU time. `node --single-threaded-gc` (bench/client_state_ts.py)
// keeps the collector on this thread, so each phase's time holds its own collections and no
// other phase's sweeping left running in the background.
// Usage: node --expose-gc --single-threaded-gc client_state.js FRAMES RUNS; prints
// {"decode": [s…], "apply": [s…]} (the first WARMUP rounds, while the compiler still optimizes
// both phases' code, are untimed).
import { readFileSync } from "node:fs";
import { ClientState } from "../../src/index.js";
import * as v2 from "../../src/v2/index.js";

const [path, runsText] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: client_state FRAMES RUNS");
const runs = Number(runsText ?? "5");
const lines = readFileSync(path, "utf8").split("\n").filter((line) => line !== "");
const decoded = lines.map((line) => v2.decode.UpdateSessionNotification((JSON.parse(line) as { params: unknown }).params));
const METHOD = "session/update";
const WARMUP = 3;
const collect = (globalThis as { gc?: () => void }).gc ?? ((): void => {});
const cpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const found: { decode: number[]; apply: number[] } = { decode: [], apply: [] };
const states: ClientState[] = [];
let checked = 0;
for (let round = 0; round < WARMUP + runs; round++) {
  collect();
  let started = cpu();
  for (const line of lines) {
    checked += v2.decode.UpdateSessionNotification((JSON.parse(line) as { params: unknown }).params) === undefined ? 0 : 1;
  }
  const decode = cpu() - started;
  const state = new ClientState(v2.STATE_TABLE);
  states.push(state);
  collect();
  started = cpu();
  for (const params of decoded) state.apply({ method: METHOD, params });
  const apply = cpu() - started;
  if (state.session("s-1").log.length > 0) throw new Error("an update of the workload was not applied");
  if (round < WARMUP) continue;
  found.decode.push(decode);
  found.apply.push(apply);
}
if (checked !== lines.length * (WARMUP + runs)) throw new Error("a frame was not decoded");
process.stdout.write(JSON.stringify(found) + "\n");
