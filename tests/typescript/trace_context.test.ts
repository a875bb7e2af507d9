// W3C trace context (runtime/trace_context.ts), as in the Python runtime: "The following root-level
// keys in `_meta` SHOULD be reserved for W3C trace context … `traceparent`, `tracestate`,
// `baggage`" (ACP extensibility.mdx); the meta-propagation RFD makes `params._meta` the carrier, with
// the keys at its root. What a handler sends while handling a request carrying them, nested requests
// and notifications alike, gets a copy of them, unless it sets one of them itself
// (docs/session-metadata.md, Trace context).
import assert from "node:assert/strict";
import { test } from "node:test";
import { carryTraceContext, traceContextOf, withTraceContext } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import { agentWithRawClient, chunk } from "./support.js";
import { SESSION, agentWithRawClient as v2AgentWithRawClient, labels, text, wordAgent } from "./v2_support.js";

const TRACE = {
  traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  tracestate: "vendor=value",
  baggage: "user=ann",
};

type Frame = Record<string, unknown>;
const metaOf = (frame: Frame | undefined): unknown => (frame?.["params"] as { _meta?: unknown } | undefined)?._meta;

test("trace context is read from the root keys of params._meta only, strings only", () => {
  assert.deepEqual(traceContextOf({ _meta: { ...TRACE, other: 1 } }), TRACE);
  assert.equal(traceContextOf({ _meta: { otel: { traceparent: "x" } } }), null);
  assert.equal(traceContextOf({ _meta: { traceparent: 7 } }), null);
  assert.equal(traceContextOf({ _meta: null }), null);
  assert.equal(traceContextOf([{ _meta: TRACE }]), null);
});

test("adding trace context copies, never changes the caller's params; their own keys win whole", () => {
  const original = { path: "/a", _meta: { k: 1 } };
  assert.deepEqual(withTraceContext(original, { baggage: "b" }), { path: "/a", _meta: { k: 1, baggage: "b" } });
  assert.deepEqual(original, { path: "/a", _meta: { k: 1 } });
  assert.deepEqual(withTraceContext(undefined, { baggage: "b" }), { _meta: { baggage: "b" } });
  const own = { _meta: { traceparent: "00-own-01" } };
  assert.equal(withTraceContext(own, TRACE), own); // "a handler that sets its own context owns all three"
  assert.equal(carryTraceContext(original, { _meta: {} }), original);
});

test("a traceparent on a prompt reaches the agent's nested fs/read_text_file and its session/update notifications", async () => {
  // Issue 25's trace test, through the typed layer (v1).
  const agent: v1.Agent = {
    async sessionPrompt(params, ctx) {
      const read = await ctx.client.fsReadTextFile({ sessionId: params.sessionId, path: "/a" });
      await ctx.client.sessionUpdate(chunk(params.sessionId, read.content));
      return { stopReason: "end_turn" };
    },
  };
  const { connection, peer } = agentWithRawClient(agent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [], _meta: { ...TRACE, other: "x" } } });
  const read = await peer.next((f) => f["method"] === "fs/read_text_file");
  assert.deepEqual(read["params"], { sessionId: "s", path: "/a", _meta: TRACE });
  peer.send({ jsonrpc: "2.0", id: read["id"], result: { content: "hello" } });
  const update = await peer.next((f) => f["method"] === "session/update");
  assert.deepEqual(metaOf(update), TRACE);
  assert.deepEqual((update["params"] as { update: unknown }).update, chunk("s", "hello").update);
  assert.deepEqual((await peer.next((f) => f["id"] === 1))["result"], { stopReason: "end_turn" });
  await connection.close();
});

test("a handler's own trace keys are kept; its other _meta keys get the request's trace", async () => {
  const agent: v1.Agent = {
    async sessionPrompt(params, ctx) {
      await ctx.client.sessionUpdate({ ...chunk(params.sessionId, "own"), _meta: { traceparent: "00-own-01" } });
      await ctx.client.sessionUpdate({ ...chunk(params.sessionId, "mine"), _meta: { mine: 1 } });
      return { stopReason: "end_turn" };
    },
  };
  const { connection, peer } = agentWithRawClient(agent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [], _meta: TRACE } });
  await peer.next((f) => f["id"] === 1);
  const metas = peer.frames.filter((f) => f["method"] === "session/update").map(metaOf);
  assert.deepEqual(metas, [{ traceparent: "00-own-01" }, { mine: 1, ...TRACE }]);
  await connection.close();
});

test("what is sent outside a traced request's handler is sent unchanged", async () => {
  const agent: v1.Agent = {
    async sessionPrompt(params, ctx) {
      await ctx.client.sessionUpdate(chunk(params.sessionId, "untraced"));
      return { stopReason: "end_turn" };
    },
  };
  const { connection, peer } = agentWithRawClient(agent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: "s", prompt: [], _meta: { traceparent: 7 } } });
  await peer.next((f) => f["id"] === 1);
  await connection.peer.sessionUpdate(chunk("s", "from the connection"));
  await peer.next((f) => (f["params"] as { update?: { content?: { text?: string } } } | undefined)?.update?.content?.text === "from the connection");
  const updates = peer.frames.filter((f) => f["method"] === "session/update");
  assert.deepEqual(updates.map(metaOf), [undefined, undefined]);
  await connection.close();
});

test("v2: a prompt's trace context is on every update of its insertion and its work, state updates included", async () => {
  const { connection, peer } = v2AgentWithRawClient(wordAgent);
  peer.send({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: { sessionId: SESSION, prompt: text("one two"), _meta: TRACE } });
  await peer.next((f) => (f["params"] as { update?: { state?: string } } | undefined)?.update?.state === "idle");
  assert.deepEqual(labels(peer.frames), [
    "update:user_message",
    "update:state_update:running",
    "answer:1",
    "update:agent_message_chunk",
    "update:agent_message_chunk",
    "update:state_update:idle:end_turn",
  ]);
  const updates = peer.frames.filter((f) => f["method"] === "session/update");
  assert.deepEqual(updates.map(metaOf), updates.map(() => TRACE));
  await connection.close();
});
