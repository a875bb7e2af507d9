// A spawned program's lifetime (runtime/transports/process.ts, `ProcessTransport`): its whole process group
// ends with the connection, and pending callers fail when the program exits. The program below
// starts a grandchild that, like an npm wrapper's native agent, ignores the end of its input (and
// in the worst case SIGTERM) and keeps the stdout pipe open.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Connection, ConnectionClosed, spawnTransport, type ProcessTransport } from "../src/index.js";
import { quietRouter } from "./support.js";

// The grandchild writes its pid once it is set up (its SIGTERM handler in place); the program
// exits on the end of its input, or once it has read our first frame.
const STUBBORN = `
if (process.argv[2] === "ignore-term") process.on("SIGTERM", () => {});
require("node:fs").writeFileSync(process.argv[1], String(process.pid));
setInterval(() => {}, 1000);
`;
const FORKING = `
const [pidFile, term, exit] = process.argv.slice(1);
const options = { stdio: ["ignore", "inherit", "inherit"] };
require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(STUBBORN)}, pidFile, term], options);
process.stdin.resume();
process.stdin.on(exit === "after-first-frame" ? "data" : "end", () => process.exit(0));
`;


/** Whether `pid` runs (a zombie waiting for a reaper does not). */
function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(")").pop()?.trim().split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** How long a program (and then its group) may take to exit; wide, so that a loaded machine
 * cannot blur "signalled at once" with "waited out the grace". */
const GRACE = 1000;

async function spawnForking(term: string, exit: string): Promise<{ transport: ProcessTransport; grandchild: number }> {
  const pidFile = join(mkdtempSync(join(tmpdir(), "acp-forking-")), "grandchild.pid");
  const transport = spawnTransport(process.execPath, ["-e", FORKING, pidFile, term, exit], { exitGrace: GRACE });
  for (let i = 0; i < 500; i++) {
    try {
      const pid = Number(readFileSync(pidFile, "utf8"));
      if (pid > 0) return { transport, grandchild: pid };
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the program did not start its grandchild");
}

for (const term of ["plain", "ignore-term"]) {
  test(`nothing of the program's process group survives closing (${term})`, { timeout: 10_000 }, async () => {
    // "a child process must never outlive its parent's interest in it": stdin closed, then
    // SIGTERM, then SIGKILL, to the whole group, even when the program itself exits cleanly.
    const { transport, grandchild } = await spawnForking(term, "wait");
    const connection = new Connection(transport, () => quietRouter);
    assert.ok(running(grandchild));
    const started = Date.now();
    await connection.close();
    assert.equal(transport.child.exitCode, 0); // the program left on the end of its input
    assert.ok(!running(grandchild), "the grandchild outlived the connection");
    // SIGTERM ends the plain grandchild at once; the other waits out the grace, then SIGKILL.
    const took = Date.now() - started;
    assert.ok(term === "plain" ? took < GRACE : took >= GRACE && took < 4 * GRACE, `closing took ${took} ms`);
  });
}

test("pending requests fail when the program exits though a grandchild holds its stdout", { timeout: 10_000 }, async () => {
  // The program is watched, not only the pipe: our request was read, nothing more is written,
  // and the end of stdout never comes while the grandchild lives.
  const { transport, grandchild } = await spawnForking("plain", "after-first-frame");
  const connection = new Connection(transport, () => quietRouter);
  const started = Date.now();
  await assert.rejects(
    connection.request("x", {}, (value) => value),
    ConnectionClosed,
  );
  assert.ok(Date.now() - started < 3000);
  await connection.close();
  assert.ok(!running(grandchild), "the grandchild outlived the connection");
});

/** A node program that runs a stubborn program through our runtime (`spawnTransport`), with
 * `handler` as its own SIGTERM listener when given; resolves once the stubborn one is set up. */
async function host(handler: string): Promise<{ host: ReturnType<typeof spawn>; stubborn: number }> {
  const folder = mkdtempSync(join(tmpdir(), "acp-host-"));
  const pidFile = join(folder, "stubborn.pid");
  const runtime = new URL("../src/index.js", import.meta.url).href;
  const script = join(folder, "host.mjs");
  writeFileSync(
    script,
    `import { spawnTransport } from ${JSON.stringify(runtime)};
const transport = spawnTransport(process.execPath, ["-e", ${JSON.stringify(STUBBORN)}, ${JSON.stringify(pidFile)}, "ignore-term"], { exitGrace: 200 });
transport.start(() => {}, () => {});
${handler}
setInterval(() => {}, 1000);
`,
  );
  const child = spawn(process.execPath, [script], { stdio: "ignore" });
  for (let i = 0; i < 500; i++) {
    try {
      const pid = Number(readFileSync(pidFile, "utf8"));
      if (pid > 0) return { host: child, stubborn: pid };
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  child.kill("SIGKILL");
  throw new Error("the host did not start its program");
}

test("a signal that ends this process ends the programs it runs", { timeout: 10_000 }, async () => {
  // In a group of its own the program no longer gets the terminal's Ctrl-C: a SIGINT, SIGTERM or
  // SIGHUP that nothing else handles kills it, then ends this process as it would have.
  const { host: child, stubborn } = await host("");
  child.kill("SIGTERM");
  await once(child, "exit");
  assert.equal(child.signalCode, "SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(!running(stubborn), "the program outlived the process that ran it");
});

test("a host's own signal handler is left to close its connections", { timeout: 10_000 }, async () => {
  const { host: child, stubborn } = await host(
    `process.on("SIGTERM", async () => { await transport.close(); process.exit(3); });`,
  );
  child.kill("SIGTERM");
  await once(child, "exit");
  assert.equal(child.exitCode, 3); // the host's handler ran, ours did not end the process
  assert.ok(!running(stubborn), "closing the transport left the program running");
});
