// NDJSON framing (runtime/transports/transport.ts): frames of any split, and frames over the limit dropped
// without taking the connection (or memory) with them.
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  Connection,
  ConnectionClosed,
  INVALID_REQUEST,
  LineSplitter,
  spawnTransport,
  type OversizedFrame,
  type Transport,
} from "../src/index.js";
import { quietRouter } from "./support.js";

function split(chunks: string[], limit = 1024): { lines: string[]; dropped: OversizedFrame[] } {
  const lines: string[] = [];
  const dropped: OversizedFrame[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), (frame) => dropped.push(frame), limit);
  for (const chunk of chunks) splitter.push(Buffer.from(chunk));
  splitter.flush();
  return { lines, dropped };
}

test("frames split anywhere are joined, CRLF and empty lines tolerated", () => {
  const { lines } = split(['{"a":', '1}\n{"b"', ":2}\r\n\n", '{"c":3}']);
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

test("a line that is not UTF-8 is reported with its size instead of being decoded with U+FFFD", () => {
  const lines: string[] = [];
  const unreadable: number[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), () => undefined, 1024, (size) => unreadable.push(size));
  splitter.push(Buffer.concat([Buffer.from('{"a":1}\n{"t":"'), Buffer.from([0xff]), Buffer.from('"}\r\n{"é":2}\n')]));
  assert.deepEqual(lines, ['{"a":1}', '{"é":2}']);
  assert.deepEqual(unreadable, [9]); // {"t":" (6 bytes), the bad byte, "} (its \r is not the frame)
});

test("a frame over the limit is dropped as it streams; its head and size are reported", () => {
  const big = '{"jsonrpc":"2.0","id":7,"method":"x","params":"' + "y".repeat(5000) + '"}';
  const { lines, dropped } = split(["{\"ok\":1}\n", big.slice(0, 3000), big.slice(3000) + "\n", '{"ok":2}\n'], 1024);
  assert.deepEqual(lines, ['{"ok":1}', '{"ok":2}']);
  assert.equal(dropped.length, 1);
  assert.equal(dropped[0]?.size, big.length);
  assert.ok(dropped[0]?.head.startsWith('{"jsonrpc":"2.0","id":7'));
});

test("an oversized request is answered -32600 with its id, and the connection keeps serving", () => {
  const written: Array<Record<string, unknown>> = [];
  let oversized: ((frame: OversizedFrame) => void) | undefined;
  const transport: Transport = {
    start(_onFrame, _onClose, onOversized) {
      oversized = onOversized;
    },
    write(frame) {
      written.push(JSON.parse(frame) as Record<string, unknown>);
      return undefined;
    },
    async close() {},
    pause() {},
    resume() {},
  };
  new Connection(transport, () => quietRouter);
  oversized?.({ head: '{"jsonrpc":"2.0","id":"big-1","method":"session/prompt","params":{"prompt":[', size: 60_000_000 });
  assert.equal(written.length, 1);
  assert.equal(written[0]?.id, "big-1");
  assert.equal((written[0]?.error as { code: number }).code, INVALID_REQUEST);
});

test("an oversized request whose id is beyond 2^53 is answered with that exact id", () => {
  const written: string[] = [];
  let oversized: ((frame: OversizedFrame) => void) | undefined;
  const transport: Transport = {
    start(_onFrame, _onClose, onOversized) {
      oversized = onOversized;
    },
    write(frame) {
      written.push(frame);
      return undefined;
    },
    async close() {},
    pause() {},
    resume() {},
  };
  new Connection(transport, () => quietRouter);
  oversized?.({ head: '{"jsonrpc":"2.0","id":9007199254741233,"method":"session/prompt","params":{"prompt":[', size: 60_000_000 });
  assert.equal(written.length, 1);
  assert.ok(written[0]?.startsWith('{"jsonrpc":"2.0","id":9007199254741233,"error":{"code":-32600'), written[0]);
});

test("a spawned program that ignores the end of its input is terminated on close", async () => {
  // A child process must never outlive its parent's interest in it.
  const stubborn = "process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);";
  const transport = spawnTransport(process.execPath, ["-e", stubborn], { exitGrace: 200 });
  transport.start(() => undefined, () => undefined);
  const started = Date.now();
  await transport.close();
  assert.ok(transport.child.exitCode !== null || transport.child.signalCode !== null, "the program still runs");
  assert.equal(transport.child.signalCode, "SIGTERM");
  assert.ok(Date.now() - started < 2000);
});

test("a spawned program that exits on the end of its input is waited for, not signalled", async () => {
  const polite = "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));";
  const transport = spawnTransport(process.execPath, ["-e", polite], { exitGrace: 2000 });
  transport.start(() => undefined, () => undefined);
  await transport.close();
  assert.equal(transport.child.exitCode, 0);
  assert.equal(transport.child.signalCode, null);
});

test("a whole command line given as the program says where its arguments go", async () => {
  const transport = spawnTransport(`${process.execPath} agent.js --verbose`, [], { exitGrace: 200 });
  const connection = new Connection(transport, () => quietRouter);
  const reason = await connection.closed;
  assert.equal(
    reason,
    `could not start ${process.execPath} agent.js --verbose: no such program (ENOENT); ` +
      `give the arguments as a list: spawnAgent(client, ${JSON.stringify(process.execPath)}, ["agent.js","--verbose"])`,
  );
  await connection.close();
  await transport.close();
});

test("a program that cannot be started closes its connection with one line; close() returns", async () => {
  // Node reports a failed spawn as an "error" event on the child: unheard, it ended this process
  // with a stack trace, and closing the transport waited forever for an exit that never comes.
  const missing = join(tmpdir(), "acp-no-such-program");
  const transport = spawnTransport(missing, [], { exitGrace: 200 });
  const connection = new Connection(transport, () => quietRouter);
  const reason = await connection.closed;
  assert.equal(reason, `could not start ${missing}: no such program (ENOENT)`);
  assert.equal(reason.split("\n").length, 1);
  await assert.rejects(connection.request("x", {}, (value) => value), ConnectionClosed);
  await connection.close();
  await transport.close();
});
