// LSP base protocol framing (runtime/transports/framing.ts CONTENT_LENGTH), as the Python runtime's
// transports/framing.py: "Content-Length: N\r\n\r\n" then N bytes of UTF-8 JSON, chosen per
// transport; NDJSON stays the default.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import {
  CONTENT_LENGTH,
  Connection,
  NDJSON,
  StreamTransport,
  spawnTransport,
  type OversizedFrame,
  type Router,
} from "../src/index.js";
import { quietRouter } from "./support.js";

interface Cut {
  frames: string[];
  dropped: OversizedFrame[];
  unreadable: number[];
  malformed: string[];
}

function cut(chunks: Array<string | Buffer>, limit = 1024): Cut {
  const out: Cut = { frames: [], dropped: [], unreadable: [], malformed: [] };
  const splitter = CONTENT_LENGTH.splitter(
    {
      onFrame: (frame) => out.frames.push(frame),
      onOversized: (frame) => out.dropped.push(frame),
      onUnreadable: (size) => out.unreadable.push(size),
      onMalformed: (reason) => out.malformed.push(reason),
    },
    limit,
  );
  for (const chunk of chunks) splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  splitter.flush();
  return out;
}

const framed = (body: string): string => CONTENT_LENGTH.wrap(body);

test("wrap: 'Content-Length: N\\r\\n\\r\\n' where N counts the body's UTF-8 bytes, not its characters", () => {
  // LSP: "Content-Length … The length of the content part in bytes."
  assert.equal(framed('{"a":"é"}'), 'Content-Length: 10\r\n\r\n{"a":"é"}');
  assert.equal(NDJSON.wrap('{"a":1}'), '{"a":1}\n');
});

test("messages split anywhere, headers included, are cut whole; back-to-back messages in one chunk too", () => {
  const stream = framed('{"id":1}') + framed('{"id":"é"}') + framed("{}");
  for (let size = 1; size <= stream.length; size++) {
    const bytes = Buffer.from(stream);
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
    assert.deepEqual(cut(chunks).frames, ['{"id":1}', '{"id":"é"}', "{}"], `chunks of ${size} bytes`);
  }
});

test("header names are case-insensitive; Content-Type is ignored; a body may hold newlines", () => {
  // LSP: "Content-Type … Defaults to application/vscode-jsonrpc; charset=utf-8".
  const body = '{\n  "id": 2\n}';
  const stream = `content-length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}`;
  assert.deepEqual(cut([stream]).frames, [body]);
});

test("a header part without a usable Content-Length is dropped with one line, and the stream stays usable", () => {
  const out = cut(["Content-Type: x\r\n\r\n", "Content-Length: abc\r\n\r\n", framed('{"ok":1}')]);
  assert.deepEqual(out.frames, ['{"ok":1}']);
  assert.deepEqual(out.malformed, [
    "a message header without a usable Content-Length was dropped",
    "a message header without a usable Content-Length was dropped",
  ]);
});

test("a header part that never ends is not held: dropped past 8 KiB", () => {
  const out = cut(["X".repeat(10_000), "\r\n\r\n" + framed('{"ok":2}')]);
  assert.deepEqual(out.frames, ['{"ok":2}']);
  // Its last bytes are kept (the end may straddle chunks), then read as a header part without a length.
  assert.deepEqual(out.malformed, [
    "a header part of over 8192 bytes without its end was dropped",
    "a message header without a usable Content-Length was dropped",
  ]);
});

test("a body over the limit is skipped as it streams; its head and size are reported; the next message is read", () => {
  const big = '{"jsonrpc":"2.0","id":7,"method":"x","params":"' + "y".repeat(5000) + '"}';
  const stream = Buffer.from(framed(big) + framed('{"ok":3}'));
  const out = cut([stream.subarray(0, 100), stream.subarray(100, 3000), stream.subarray(3000)], 1024);
  assert.deepEqual(out.frames, ['{"ok":3}']);
  assert.equal(out.dropped.length, 1);
  assert.equal(out.dropped[0]?.size, big.length);
  assert.ok(out.dropped[0]?.head.startsWith('{"jsonrpc":"2.0","id":7'));
});

test("a body that is not UTF-8 is reported with its size, not decoded with U+FFFD", () => {
  // RFC 8259 §8.1: JSON text exchanged between systems "MUST be encoded using UTF-8".
  const bad = Buffer.concat([Buffer.from('{"t":"'), Buffer.from([0xff]), Buffer.from('"}')]);
  const out = cut([Buffer.from(`Content-Length: ${bad.length}\r\n\r\n`), bad, Buffer.from(framed("{}"))]);
  assert.deepEqual([out.frames, out.unreadable], [["{}"], [9]]);
});

test("a stream that ends inside a message reports it", () => {
  assert.deepEqual(cut(["Content-Length: 10\r\n\r\n{"]).malformed, ["the stream ended inside a message"]);
  assert.deepEqual(cut([framed("{}"), "\r\n"]).malformed, []);
});

test("a connection over a Content-Length transport answers in Content-Length frames; -32700 too", async () => {
  const toUs = new PassThrough();
  const fromUs = new PassThrough();
  const router: Router = { ...quietRouter, async request(request) { return { echoed: request.params }; } };
  const connection = new Connection(new StreamTransport(toUs, fromUs, async () => undefined, CONTENT_LENGTH), () => router);
  const written: Buffer[] = [];
  fromUs.on("data", (chunk: Buffer) => written.push(chunk));
  toUs.write(framed('{"jsonrpc":"2.0","id":9007199254740993,"method":"echo","params":{"x":"é"}}') + framed("{not json"));
  const answers = (): string[] => cut([Buffer.concat(written)], 1 << 20).frames;
  for (let tries = 0; answers().length < 2 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  // The refusal is written as the line is read; the echo once its (async) handler returns.
  const [refusal, echo] = answers();
  assert.equal(echo, '{"jsonrpc":"2.0","id":9007199254740993,"result":{"echoed":{"x":"é"}}}');
  const error = JSON.parse(refusal ?? "null") as { id: unknown; error: { code: number } };
  assert.deepEqual([error.id, error.error.code], [null, -32700]);
  await connection.close();
});

test("a spawned LSP-framed program is spoken to in Content-Length frames over its stdio", async () => {
  // The child echoes each request's params back as its result, reading and writing Content-Length frames.
  const program = `
    let buffer = Buffer.alloc(0);
    process.stdin.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf("\\r\\n\\r\\n");
        if (end < 0) return;
        const length = Number(/Content-Length: (\\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
        if (buffer.length < end + 4 + length) return;
        const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
        buffer = buffer.subarray(end + 4 + length);
        const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: message.params });
        process.stdout.write("Content-Length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body);
      }
    });
    process.stdin.on("end", () => process.exit(0));`;
  const transport = spawnTransport(process.execPath, ["-e", program], { framing: CONTENT_LENGTH, exitGrace: 500 });
  const connection = new Connection(transport, () => quietRouter);
  assert.deepEqual(await connection.request("textDocument/hover", { line: "é" }, (value) => value), { line: "é" });
  await connection.close();
  assert.equal(transport.child.exitCode, 0);
});
