// ACP v2's prompt retries, as the generated v2 agent answers them on the wire (runtime/foreground.ts).
//
// PromptRequest.idempotencyKey: "The Client generates the key and sends the same key on every
// attempt for the same submission. … A retry of a recorded insertion returns the original
// `messageId` without inserting another message." and "When present, the value is an opaque,
// case-sensitive string of 1 to 255 characters. Agents MUST reject any other value with `-32602`
// (Invalid params) and MUST NOT treat it as omitted."; IdempotencyKey: "It is scoped to the
// session named by the request's `sessionId`."
import assert from "node:assert/strict";
import { test } from "node:test";
import * as v2 from "../src/v2/index.js";
import type { RawPeer } from "./support.js";
import { until } from "./support.js";
import { SESSION, agentWithRawClient, labels, text, updates, wordAgent, words } from "./v2_support.js";

type Frame = Record<string, unknown>;

/** A prompt carrying `key` as its `idempotencyKey` (undefined: no such field). */
function keyed(peer: RawPeer, id: number, value: string, key: unknown, session: string = SESSION): void {
  const params: Frame = { sessionId: session, prompt: text(value) };
  if (key !== undefined) params["idempotencyKey"] = key;
  peer.send({ jsonrpc: "2.0", id, method: "session/prompt", params });
}

/** The message ids of the `user_message` updates among `frames`: one per insertion. */
function inserted(frames: Frame[]): string[] {
  return updates(frames)
    .filter((u) => u["sessionUpdate"] === "user_message")
    .map((u) => String(u["messageId"]));
}

function messageIdOf(frame: Frame): string {
  return (frame["result"] as { messageId: string }).messageId;
}

function idles(peer: RawPeer): number {
  return labels(peer.frames).filter((l) => l.startsWith("update:state_update:idle")).length;
}

/** An agent whose work on a prompt with the word "gate" waits until `release` is called. */
function gatedAgent(): { agent: v2.Agent; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const agent: v2.Agent = {
    async sessionPrompt(params) {
      if (words(params.prompt).includes("gate")) await gate;
      return undefined;
    },
  };
  return { agent, release };
}

test("a retry of a recorded insertion is answered at once with its messageId, inserting nothing, while the work runs", async () => {
  const { agent, release } = gatedAgent();
  const { peer } = agentWithRawClient(agent);
  keyed(peer, 1, "gate one two", "submission-1");
  const messageId = messageIdOf(await peer.next((f) => f["id"] === 1));
  keyed(peer, 2, "gate one two", "submission-1");
  const retry = await peer.next((f) => f["id"] === 2);
  assert.deepEqual(retry, { jsonrpc: "2.0", id: 2, result: { messageId } });
  // Answered while the first attempt's work still runs, not held behind it.
  assert.equal(idles(peer), 0);
  release();
  await until(() => idles(peer) === 1);
  assert.deepEqual(labels(peer.frames), [
    "update:user_message",
    "update:state_update:running",
    "answer:1",
    "answer:2",
    "update:state_update:idle:end_turn",
  ]);
  assert.deepEqual(inserted(peer.frames), [messageId]);
  // The key outlives the idle period: "The Agent MUST recognize the key for as long as it
  // retains the message … while the session stays active on a connection."
  await new Promise((resolve) => setTimeout(resolve, 20));
  keyed(peer, 3, "gate one two", "submission-1");
  assert.deepEqual((await peer.next((f) => f["id"] === 3))["result"], { messageId });
  // Case-sensitive: another key is another submission.
  keyed(peer, 4, "one two", "Submission-1");
  const other = messageIdOf(await peer.next((f) => f["id"] === 4));
  await until(() => idles(peer) === 2);
  assert.notEqual(other, messageId);
  assert.deepEqual(inserted(peer.frames), [messageId, other]);
});

test("session/close forgets the session's keys", async () => {
  const { peer } = agentWithRawClient(wordAgent);
  keyed(peer, 1, "once", "k");
  const first = messageIdOf(await peer.next((f) => f["id"] === 1));
  await until(() => idles(peer) === 1);
  peer.send({ jsonrpc: "2.0", id: 2, method: "session/close", params: { sessionId: SESSION } });
  assert.deepEqual((await peer.next((f) => f["id"] === 2))["result"], {});
  keyed(peer, 3, "once", "k");
  const again = messageIdOf(await peer.next((f) => f["id"] === 3));
  assert.notEqual(again, first);
  assert.deepEqual(inserted(peer.frames), [first, again]);
});

test("a retry held behind work answers the insertion made meanwhile, and the session passes on to the next held prompt", async () => {
  // Both attempts wait behind other work; the first is inserted when it ends, the second, when
  // its own turn comes, finds that insertion and inserts nothing.
  const { agent, release } = gatedAgent();
  const { peer } = agentWithRawClient(agent);
  keyed(peer, 1, "gate ahead of both", undefined);
  const ahead = messageIdOf(await peer.next((f) => f["id"] === 1));
  keyed(peer, 2, "the submission", "k");
  keyed(peer, 3, "the submission", "k");
  keyed(peer, 4, "after the retry", undefined);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.deepEqual(labels(peer.frames), ["update:user_message", "update:state_update:running", "answer:1"], "held while the work runs");
  release();
  await peer.next((f) => f["id"] === 4);
  await until(() => idles(peer) === 3);
  const answers = new Map(peer.frames.filter((f) => f["result"] !== undefined).map((f) => [f["id"], messageIdOf(f)]));
  assert.equal(answers.get(3), answers.get(2));
  assert.deepEqual(inserted(peer.frames), [ahead, answers.get(2), answers.get(4)]);
  // The retry is answered once the work of its attempt ended (its answer and the next insertion's
  // updates travel apart: only their own orders are fixed).
  const order = labels(peer.frames);
  assert.ok(order.indexOf("answer:3") > order.lastIndexOf("answer:2") + 1, order.join(", "));
  // Three insertions, each a whole turn: echo, running, its answer, idle.
  const turn = (id: number): string[] => ["update:user_message", "update:state_update:running", `answer:${id}`, "update:state_update:idle:end_turn"];
  assert.deepEqual(order.filter((l) => l !== "answer:3"), [...turn(1), ...turn(2), ...turn(4)]);
});

test("the same key in another session is another submission", async () => {
  const { peer } = agentWithRawClient(wordAgent);
  keyed(peer, 1, "here", "k", "s-1");
  const first = messageIdOf(await peer.next((f) => f["id"] === 1));
  keyed(peer, 2, "there", "k", "s-2");
  const second = messageIdOf(await peer.next((f) => f["id"] === 2));
  assert.notEqual(first, second);
  assert.deepEqual(inserted(peer.frames), [first, second]);
});

test("a null key is no key, as an omitted one is", async () => {
  // "Omitted and `null` are equivalent and mean no key. The Agent then handles the prompt without
  // duplicate detection."
  const { peer } = agentWithRawClient(wordAgent);
  keyed(peer, 1, "once", null);
  keyed(peer, 2, "once", null);
  keyed(peer, 3, "once", undefined);
  await until(() => idles(peer) === 3);
  const answers = peer.frames.filter((f) => f["result"] !== undefined).map(messageIdOf);
  assert.equal(new Set(answers).size, 3);
  assert.deepEqual(inserted(peer.frames), answers);
});

const invalid: Array<[string, unknown]> = [
  ["empty", ""],
  ["256 characters", "k".repeat(256)],
  ["256 emoji", "\u{1f600}".repeat(256)],
  ["a number", 7],
  ["an array", ["k"]],
];

for (const [name, key] of invalid) {
  test(`a key out of range is invalid params and inserts nothing: ${name}`, async () => {
    const { peer } = agentWithRawClient(wordAgent);
    keyed(peer, 1, "never inserted", key);
    const answer = await peer.next((f) => f["id"] === 1);
    assert.equal((answer["error"] as { code: number }).code, -32602);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(updates(peer.frames), []);
  });
}

// Characters, as JSON Schema counts them: 255 emoji are 510 UTF-16 units, 1,020 bytes.
const valid: Array<[string, string]> = [
  ["255 characters", "k".repeat(255)],
  ["255 emoji", "\u{1f600}".repeat(255)],
  ["one", "K"],
];

for (const [name, key] of valid) {
  test(`a key of 1 to 255 characters is accepted: ${name}`, async () => {
    const { peer } = agentWithRawClient(wordAgent);
    keyed(peer, 1, "accepted", key);
    const messageId = messageIdOf(await peer.next((f) => f["id"] === 1));
    keyed(peer, 2, "accepted", key);
    assert.deepEqual((await peer.next((f) => f["id"] === 2))["result"], { messageId });
    assert.deepEqual(inserted(peer.frames), [messageId]);
  });
}
