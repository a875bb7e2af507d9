// The dispatcher's answers to bad input: a malformed frame never kills the connection, and every
// error names what was wrong.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { type Socket, connect, createServer } from "node:net";
import { PassThrough } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  Connection,
  ConnectionClosed,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  INTERNAL_ERROR,
  StreamTransport,
  memoryPair,
  type Router,
} from "../src/index.js";
import { RawPeer, agentWithRawClient, connected, quietRouter } from "./support.js";

const agent = {
  async initialize(params: { protocolVersion: number }) {
    return { protocolVersion: params.protocolVersion };
  },
};

test("a frame that is not JSON is answered -32700 and the connection keeps serving", async () => {
  const { peer } = agentWithRawClient(agent);
  peer.send("{not json");
  const error = await peer.next((f) => f.error !== undefined);
  assert.equal((error.error as { code: number }).code, PARSE_ERROR);
  assert.equal(error.id, null);
  peer.send({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: 1 } });
  assert.deepEqual((await peer.next((f) => f.id === 7)).result, { protocolVersion: 1 });
});

test("a method nobody handles is answered -32601, and so is a $/ request", async () => {
  const { peer } = agentWithRawClient(agent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/load", params: { sessionId: "s", cwd: "/", mcpServers: [] } });
  peer.send({ jsonrpc: "2.0", id: 2, method: "$/cancel_request", params: { requestId: 1 } });
  for (const id of [1, 2]) {
    const answer = await peer.next((f) => f.id === id);
    assert.equal((answer.error as { code: number }).code, METHOD_NOT_FOUND);
  }
});

test("invalid params are answered -32602 with the JSON pointer of the bad value", async () => {
  const { peer } = agentWithRawClient(agent);
  peer.send({ jsonrpc: "2.0", id: "a", method: "initialize", params: { protocolVersion: "one" } });
  const answer = await peer.next((f) => f.id === "a");
  const error = answer.error as { code: number; data: { pointer: string } };
  assert.equal(error.code, INVALID_PARAMS);
  assert.equal(error.data.pointer, "/protocolVersion");
});

test("a response answers our request only under its exact id: not 0.0, not \"0\", not 0e0", async () => {
  const [ours, theirs] = memoryPair();
  const connection = new Connection(ours, () => quietRouter);
  const peer = new RawPeer(theirs);
  const call = connection.request("x", {}, (value) => value);
  await peer.next((f) => f.method === "x");
  for (const id of ["0.0", '"0"', "0e0"]) peer.send(`{"jsonrpc":"2.0","id":${id},"result":"not ours"}`);
  peer.send('{"jsonrpc":"2.0","id":0,"result":"ours"}');
  assert.equal(await call, "ours");
  await connection.close();
});

test("a result JSON cannot encode is answered -32603 with the request's id", async () => {
  const [ours, theirs] = memoryPair();
  const router: Router = { ...quietRouter, async request() { return { big: 1n }; } };
  const connection = new Connection(ours, () => router);
  const peer = new RawPeer(theirs);
  peer.send('{"jsonrpc":"2.0","id":9007199254741233,"method":"x"}');
  const answer = await peer.next((f) => f.error !== undefined);
  assert.equal((answer.error as { code: number }).code, INTERNAL_ERROR);
  await connection.close();
});

test("a $/ notification other than $/cancel_request is handed to the router", async () => {
  const [ours, theirs] = memoryPair();
  const handed: string[] = [];
  const router: Router = { ...quietRouter, async notification(method) { handed.push(method); } };
  const connection = new Connection(ours, () => router);
  const peer = new RawPeer(theirs);
  peer.send({ jsonrpc: "2.0", method: "$/progress", params: { token: 1 } });
  peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 5 } });
  peer.send({ jsonrpc: "2.0", id: 1, method: "x" });
  await peer.next((f) => f.id === 1);
  assert.deepEqual(handed, ["$/progress"]);
  await connection.close();
});

test("closing rejects the requests still waiting with ConnectionClosed", async () => {
  const { clientSide, agentSide } = connected({ async initialize() { return new Promise<never>(() => undefined); } }, {});
  const call = clientSide.agent.initialize({ protocolVersion: 1 });
  await agentSide.close();
  await assert.rejects(call, ConnectionClosed);
  assert.equal(await clientSide.closed, "the peer closed the connection");
});

test("a peer that floods requests is read only as fast as they are handled", async () => {
  // Reading pauses at `maxQueued` requests being handled and resumes below half of it.
  let started = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { peer } = agentWithRawClient(
    {
      async initialize(params) {
        started++;
        await gate;
        return { protocolVersion: params.protocolVersion };
      },
    },
    { maxQueued: 10 },
  );
  for (let id = 1; id <= 30; id++) peer.send({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: 1 } });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(started, 10);
  release();
  await peer.next((f) => f.id === 30);
  assert.equal(started, 30);
  assert.equal(peer.frames.length, 30);
});

/** Two sockets joined through a Unix socket: what we dial, and what the server accepted. */
async function socketPair(): Promise<{ dialled: Socket; answered: Socket; close: () => void }> {
  const path = join(mkdtempSync(join(tmpdir(), "acp-pair-")), "socket");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  const dialled = connect(path);
  await new Promise<void>((resolve) => dialled.once("connect", resolve));
  return { dialled, answered: await accepted, close: () => server.close() };
}


test("writes waiting for a peer that does not read share one drain listener", async () => {
  // Each write made while the buffer is full used to add its own "drain" and "error" listeners:
  // node warned of a leak at eleven, and a caller writing in a loop grew them without bound.
  const { dialled, answered, close } = await socketPair();
  answered.pause(); // the peer reads nothing
  const connection = new Connection(new StreamTransport(dialled, dialled), () => quietRouter);
  const text = "y".repeat(100_000);
  const send = (): Promise<unknown> => connection.request("echo", { text }, (value) => value);
  const calls = Array.from({ length: 10 }, send);
  assert.ok(dialled.writableNeedDrain, "the output should be backed up");
  const listeners = (): number[] => ["drain", "error", "close"].map((e) => dialled.listenerCount(e));
  const backedUp = listeners();
  calls.push(...Array.from({ length: 30 }, send));
  for (const call of calls) call.catch(() => undefined);
  assert.deepEqual(listeners(), backedUp); // thirty more writes waiting, no more listeners
  assert.equal(dialled.listenerCount("drain"), 1);
  await connection.close();
  answered.destroy();
  close();
});

test("a peer that dies while our output is backed up fails our requests and nothing else", async () => {
  // A write waiting for room must not turn the peer's death into an unhandled rejection (which
  // ends a node process): the requests fail with ConnectionClosed and the process goes on.
  const { dialled, answered, close } = await socketPair();
  answered.pause();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on("unhandledRejection", onUnhandled);
  try {
    const connection = new Connection(new StreamTransport(dialled, dialled), () => quietRouter);
    const text = "x".repeat(100_000);
    const calls = Array.from({ length: 20 }, () => connection.request("echo", { text }, (value) => value));
    assert.ok(dialled.writableNeedDrain, "the output should be backed up");
    answered.destroy();
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.status === "rejected" && outcome.reason instanceof ConnectionClosed);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // let a stray rejection surface
    assert.deepEqual(unhandled, []);
    await connection.close();
  } finally {
    process.off("unhandledRejection", onUnhandled);
    close();
  }
});

test("two peers whose output backs up still read each other", async () => {
  // Both send each other more than the socket buffers hold, answers as large as the requests;
  // reading never waits on our own writing (an answer counts as work until it is read), so
  // neither waits for the other forever.
  const path = join(mkdtempSync(join(tmpdir(), "acp-flow-")), "socket");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  const dialled = connect(path);
  await new Promise<void>((resolve) => dialled.once("connect", resolve));
  const answered = await accepted;
  const echo: Router = {
    async request(request) {
      return (request.params as { text: string }).text; // a large answer too
    },
    received() {},
    async notification() {},
    cancelledResult() {
      return undefined;
    },
  };
  const left = new Connection(new StreamTransport(dialled, dialled), () => echo);
  const right = new Connection(new StreamTransport(answered, answered), () => echo);
  const text = "z".repeat(100_000);
  const calls = [left, right].flatMap((side) =>
    Array.from({ length: 20 }, () => side.request("echo", { text }, (value) => (value as string).length)),
  );
  let timer: NodeJS.Timeout | undefined;
  const all = await Promise.race([
    Promise.all(calls),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the peers waited on each other")), 10_000);
    }),
  ]);
  clearTimeout(timer);
  assert.deepEqual(all, Array(40).fill(100_000));
  await left.close();
  await right.close();
  server.close();
});

test("close() called after the peer ended the stream waits for the transport's release", async () => {
  // The end of the stream starts the close; a caller's own close() came back at once while the
  // release (a spawned program's group being ended) still ran, so "closed" did not mean gone.
  const input = new PassThrough();
  let released = false;
  const transport = new StreamTransport(input, new PassThrough(), async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    released = true;
  });
  const connection = new Connection(transport, () => quietRouter);
  input.end();
  await new Promise((resolve) => setImmediate(resolve)); // the end is read, the close under way
  await connection.close();
  assert.ok(released, "close() resolved before the transport was released");
  released = false;
  await transport.close(); // done already: nothing runs twice
  assert.equal(released, false);
});
