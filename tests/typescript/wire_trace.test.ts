// ACP_TRACE=FILE on the TypeScript runtime (runtime/transports/wire_trace.ts): each line an agent
// reads is recorded as tests/corpus/wire_trace/read_lines.json says (the cases the Python and Go
// runtimes' tests read: a line that is not UTF-8 is `hex:` and its bytes), and `{pid}`/`{n}`
// name each connection's file.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Connection, StreamTransport } from "../src/index.js";
import { tracePath } from "../src/runtime/transports/wire_trace.js";
import { quietRouter } from "./support.js";

/** What the connection survives (a line that is not UTF-8) is not this test's output. */
const QUIET = { onProblem: () => undefined };

interface Case {
  readonly name: string;
  readonly line_hex: string;
  readonly record: Record<string, unknown>;
}

/** tests/corpus/wire_trace/read_lines.json, found by walking up from this file. */
function corpusCases(): Case[] {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(folder, "tests", "corpus", "wire_trace", "read_lines.json");
    if (existsSync(candidate)) return (JSON.parse(readFileSync(candidate, "utf8")) as { cases: Case[] }).cases;
    const parent = dirname(folder);
    if (parent === folder) throw new Error("tests/corpus/wire_trace/read_lines.json not found above this test");
    folder = parent;
  }
}

/** The records a connection with ACP_TRACE=`folder`/agent-{n}.jsonl writes after reading `line`. */
async function recordsOf(line: Buffer, folder: string): Promise<Record<string, unknown>[]> {
  const saved = process.env["ACP_TRACE"];
  process.env["ACP_TRACE"] = join(folder, "agent-{n}.jsonl");
  const input = new PassThrough();
  let connection: Connection;
  try {
    connection = new Connection(new StreamTransport(input, new PassThrough()), () => quietRouter, QUIET);
  } finally {
    if (saved === undefined) delete process.env["ACP_TRACE"];
    else process.env["ACP_TRACE"] = saved;
  }
  input.end(Buffer.concat([line, Buffer.from("\n")]));
  await connection.closed;
  await connection.close();
  const [name, ...others] = readdirSync(folder);
  assert.deepEqual(others, []);
  return readFileSync(join(folder, name!), "utf8")
    .split("\n")
    .filter((text) => text !== "")
    .map((text) => JSON.parse(text) as Record<string, unknown>);
}

for (const kase of corpusCases()) {
  test(`ACP_TRACE: ${kase.name}`, async () => {
    const records = await recordsOf(Buffer.from(kase.line_hex, "hex"), mkdtempSync(join(tmpdir(), "acp-trace-")));
    assert.equal(records[0]!["side"], "agent");
    const { t, ...record } = records[1] ?? {};
    assert.ok(typeof t === "number" && t >= 0);
    assert.deepEqual(record, kase.record);
  });
}

test("ACP_TRACE: {pid} and {n} name each connection of a process, and a plain name gets its number", () => {
  assert.equal(tracePath("t-{pid}-{n}.jsonl", 3, 42), "t-42-3.jsonl");
  assert.equal(tracePath("/tmp/acp.jsonl", 1, 42), "/tmp/acp.jsonl");
  assert.equal(tracePath("/tmp/acp.jsonl", 2, 42), "/tmp/acp.2.jsonl");
  assert.equal(tracePath("/tmp/acp-{pid}", 2, 42), "/tmp/acp-42.2");
});

test("ACP_TRACE: two connections of a process write {pid}-{n} files of their own", async () => {
  const folder = mkdtempSync(join(tmpdir(), "acp-trace-"));
  const saved = process.env["ACP_TRACE"];
  process.env["ACP_TRACE"] = join(folder, "c-{pid}-{n}.jsonl");
  const inputs = [new PassThrough(), new PassThrough()];
  let connections: Connection[];
  try {
    connections = inputs.map((input) => new Connection(new StreamTransport(input, new PassThrough()), () => quietRouter, QUIET));
  } finally {
    if (saved === undefined) delete process.env["ACP_TRACE"];
    else process.env["ACP_TRACE"] = saved;
  }
  for (const input of inputs) input.end();
  await Promise.all(connections.map(async (connection) => connection.close()));
  const numbers = readdirSync(folder)
    .map((name) => new RegExp(`^c-${process.pid}-(\\d+)\\.jsonl$`).exec(name)?.[1])
    .map(Number)
    .sort((a, b) => a - b);
  assert.equal(numbers.length, 2);
  assert.equal(numbers[1], numbers[0]! + 1);
});
