// Malformed input never kills a connection. The rule book's seeded fuzz: the corpus's 50,000
// generated frames (malformed, truncated, not UTF-8, batches, ids of every kind, responses, holds
// and cancels), each judged by the book's oracle, with zero deviations: no wrong code, no answered
// response, no request left unanswered, every id echoed exactly, no unexpected `null` id, every
// notification handed over in order. The Python runtime runs the same frames
// (tests/runtime/test_envelope_fuzz.py). Then random frames against a typed agent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BOOK, canonical, difference, feed, oracle, outcome, sameCounts, total } from "./envelope.js";
import { Frames, digest } from "./fuzz_frames.js";
import { agentWithRawClient } from "./support.js";

test("the generator makes the frames the rule book names (both runtimes are fed the same bytes)", () => {
  const frames = new Frames(BOOK.fuzz).all();
  assert.ok(frames.length >= BOOK.fuzz.frames, `only ${frames.length} frames`);
  assert.equal(digest(frames), BOOK.fuzz.sha256, `the frames' sha256 is ${digest(frames)}, the book says ${BOOK.fuzz.sha256}`);
});

test("50,000 seeded frames of the rule book each get their required outcome", async () => {
  const frames = new Frames(BOOK.fuzz).all();
  const expected = outcome();
  for (const frame of frames) oracle(frame, expected);
  const started = Date.now();
  const { answers, handled, connection } = await feed(frames, total(expected.answers), { chunk: 500, wait: 60_000 });
  try {
    assert.ok(sameCounts(answers, expected.answers), `${frames.length} frames: ${difference(expected.answers, answers)}`);
    const first = handled.findIndex((h, k) => canonical(h) !== canonical(expected.handled[k]));
    assert.ok(
      first === -1 && handled.length === expected.handled.length,
      `notifications handed over differ from #${first === -1 ? Math.min(handled.length, expected.handled.length) : first}: ` +
        `${handled.length} handed, ${expected.handled.length} expected`,
    );
    assert.ok(Date.now() - started < 30_000, `the fuzz took ${Date.now() - started} ms`);
  } finally {
    await connection.close();
  }
});

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
