// Malformed input never kills a connection: thousands of random frames, each answered or ignored
// as JSON-RPC says, and the connection still serves a valid request afterwards.
import assert from "node:assert/strict";
import { test } from "node:test";
import { agentWithRawClient } from "./support.js";

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function value(next: () => number, depth = 0): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 7));
  switch (pick) {
    case 0: return null;
    case 1: return next() < 0.5;
    case 2: return Math.floor(next() * 2000) - 1000;
    case 3: return ["session/prompt", "initialize", "$/cancel_request", "", "x".repeat(5)][Math.floor(next() * 5)];
    case 4: return next();
    case 5: return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
    default: {
      const keys = ["jsonrpc", "id", "method", "params", "result", "error", "sessionId", "prompt", "requestId"];
      const object: Record<string, unknown> = {};
      for (const key of keys) if (next() < 0.4) object[key] = value(next, depth + 1);
      return object;
    }
  }
}

function frame(next: () => number): string {
  const roll = next();
  if (roll < 0.1) return "{" + "x".repeat(Math.floor(next() * 20)); // not JSON
  if (roll < 0.2) return JSON.stringify(value(next)); // any JSON value
  const message: Record<string, unknown> = { jsonrpc: next() < 0.9 ? "2.0" : value(next) };
  if (next() < 0.7) message["method"] = value(next);
  if (next() < 0.6) message["id"] = next() < 0.8 ? 1000 + Math.floor(next() * 1e6) : value(next);
  if (next() < 0.7) message["params"] = value(next);
  if (next() < 0.1) message["result"] = value(next);
  return JSON.stringify(message);
}

test("10,000 random frames: no crash, and a valid request is still answered", async () => {
  const { peer } = agentWithRawClient({
    async initialize(params) {
      return { protocolVersion: params.protocolVersion };
    },
    async sessionPrompt() {
      return { stopReason: "end_turn" };
    },
  });
  const next = random(20261122);
  for (let i = 0; i < 10_000; i++) peer.send(frame(next));
  peer.send({ jsonrpc: "2.0", id: "after-the-storm", method: "initialize", params: { protocolVersion: 1 } });
  const answer = await peer.next((f) => f.id === "after-the-storm", 10_000);
  assert.deepEqual(answer.result, { protocolVersion: 1 });
  // Some frames were answered (errors to requests), and every answer is a well-formed response.
  assert.ok(peer.frames.length > 1000, `only ${peer.frames.length} answers`);
  for (const reply of peer.frames) {
    assert.equal(reply.jsonrpc, "2.0");
    assert.ok("result" in reply !== "error" in reply, JSON.stringify(reply));
  }
});
