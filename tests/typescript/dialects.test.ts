// One cancellation core, three dialects (runtime/cancellation.ts), as in the Python runtime: ACP
// `$/cancel_request`, LSP `$/cancelRequest`, MCP `notifications/cancelled`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Connection, LSP, MCP, RequestError, memoryPair, type CancelDialect, type Router } from "../src/index.js";
import { RawPeer, quietRouter, rejection, until } from "./support.js";

/** A router whose requests wait until cancelled (then throw the abort's reason), and which records
 * every notification it is handed. */
function blocking(): Router & { seen: Array<[string, unknown]>; reasons: unknown[] } {
  const seen: Array<[string, unknown]> = [];
  const reasons: unknown[] = [];
  return {
    ...quietRouter,
    seen,
    reasons,
    async request(request) {
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
      reasons.push(request.signal.reason);
      throw request.signal.reason;
    },
    async notification(method, params) {
      seen.push([method, params]);
    },
  };
}

function connected(dialect: CancelDialect, router: Router = quietRouter): { connection: Connection; peer: RawPeer } {
  const [ours, theirs] = memoryPair();
  return { connection: new Connection(ours, () => router, { dialect }), peer: new RawPeer(theirs) };
}

/** Lets the frames in flight arrive (the in-memory pipe delivers on the next turn). */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 20));
}

test("LSP: $/cancelRequest names the request by `id`, and the cancelled request is answered -32800", async () => {
  // LSP: "A request that got canceled still needs to return from the server and send a response back".
  const { connection, peer } = connected(LSP, blocking());
  peer.send({ jsonrpc: "2.0", id: "q", method: "work" });
  await settle();
  peer.send({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: "q" } });
  const answer = await peer.next((f) => f.id === "q");
  assert.equal((answer.error as { code: number }).code, -32800);
  const controller = new AbortController();
  const call = connection.request("textDocument/hover", {}, (v) => v, { signal: controller.signal });
  await peer.next((f) => f.method === "textDocument/hover");
  controller.abort();
  assert.deepEqual(await peer.next((f) => f.method === "$/cancelRequest"), { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 0 } });
  peer.send({ jsonrpc: "2.0", id: 0, error: { code: -32800, message: "Request cancelled" } });
  assert.equal((await rejection(call)).code, -32800);
  await connection.close();
});

test("LSP: a request the server cancels on its own is answered -32802 Server cancelled", async () => {
  // ServerCancelled: "The server cancelled the request"; -32800 stays for the client's own cancel.
  const router: Router = { ...quietRouter, async request() { throw RequestError.cancelled(1); } };
  const { connection, peer } = connected(LSP, router);
  peer.send({ jsonrpc: "2.0", id: 1, method: "slow" });
  const error = (await peer.next((f) => f.id === 1)).error as { code: number; message: string };
  assert.deepEqual([error.code, error.message], [-32802, "Server cancelled"]);
  await connection.close();
});

test("LSP: initialize is never cancelled: no $/cancelRequest is sent for it", async () => {
  // LSP 3.17: until the InitializeResult "the client must not send any additional requests or notifications".
  const { connection, peer } = connected(LSP);
  const controller = new AbortController();
  const call = connection.request("initialize", {}, (v) => v, { signal: controller.signal, stopWaitingOnCancel: true });
  await peer.next((f) => f.method === "initialize");
  controller.abort();
  assert.equal((await rejection(call)).code, -32800);
  await settle();
  assert.deepEqual(peer.frames.map((f) => f.method), ["initialize"]);
  await connection.close();
});

test("MCP: a request the peer cancels is not answered, and its reason reaches the handler", async () => {
  // MCP: receivers SHOULD "Not send a response for the cancelled request"; "Both parties SHOULD log cancellation reasons".
  const router = blocking();
  const { connection, peer } = connected(MCP, router);
  peer.send({ jsonrpc: "2.0", id: 1, method: "work" });
  await settle();
  peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user stopped" } });
  peer.send({ jsonrpc: "2.0", id: 2, method: "after" });
  await until(() => router.reasons.length === 1);
  await settle();
  assert.deepEqual(peer.frames.map((f) => f.id), []);
  assert.deepEqual((router.reasons[0] as RequestError).data, { requestId: 1, reason: "user stopped" });
  await connection.close();
});

test("MCP: initialize is never cancelled: a cancel for it is ignored, and ours sends nothing", async () => {
  // MCP: "The `initialize` request MUST NOT be cancelled by clients".
  const router = blocking();
  const { connection, peer } = connected(MCP, router);
  peer.send({ jsonrpc: "2.0", id: 1, method: "initialize" });
  await settle();
  peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  await settle();
  assert.equal(router.reasons.length, 0);
  const controller = new AbortController();
  const call = connection.request("initialize", {}, (v) => v, { signal: controller.signal });
  await peer.next((f) => f.method === "initialize");
  controller.abort();
  await settle();
  assert.deepEqual(peer.frames.map((f) => f.method), ["initialize"]);
  peer.send({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-11-25" } });
  assert.deepEqual(await call, { protocolVersion: "2025-11-25" }); // graceful: its answer still comes
  await connection.close();
});

test("MCP: our cancelled request fails at once with its reason sent, and the late answer is ignored", async () => {
  // MCP: "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward".
  const problems: string[] = [];
  const [ours, theirs] = memoryPair();
  const connection = new Connection(ours, () => quietRouter, { dialect: MCP, onProblem: (p) => problems.push(p) });
  const peer = new RawPeer(theirs);
  const controller = new AbortController();
  const call = connection.request("tools/call", {}, (v) => v, { signal: controller.signal });
  await peer.next((f) => f.method === "tools/call");
  controller.abort("too slow");
  const error = await rejection(call);
  assert.deepEqual([error.code, error.data], [-32800, { requestId: 0, sent: true, reason: "too slow" }]);
  const cancel = await peer.next((f) => f.method === "notifications/cancelled");
  assert.deepEqual(cancel.params, { requestId: 0, reason: "too slow" });
  peer.send({ jsonrpc: "2.0", id: 0, result: {} });
  await settle();
  assert.equal(peer.frames.length, 2); // the request and its cancel: the late answer drew nothing
  assert.ok(problems.some((p) => p.includes("no request of ours")), problems.join("; ")); // dropped, unmatched
  await connection.close();
});

test("another dialect's cancel notification is an ordinary notification", async () => {
  // A connection speaks one dialect: under MCP, `$/cancel_request` reaches the router and cancels nothing.
  const router = blocking();
  const { connection, peer } = connected(MCP, router);
  peer.send({ jsonrpc: "2.0", id: 1, method: "work" });
  peer.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 1 } });
  await until(() => router.seen.length === 1);
  assert.deepEqual(router.seen, [["$/cancel_request", { requestId: 1 }]]);
  assert.equal(router.reasons.length, 0);
  await connection.close();
});
