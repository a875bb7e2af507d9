// The generated decoders (src/<v>/decode.ts) at the boundary: what they accept, what they reject
// and where, and the schema's lenient rules.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DecodeError } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import { DEFAULT_ON_ERROR, REQUIRED, anyOf, integer, string, stringWith, struct } from "../src/runtime/decoding.js";
import * as v2 from "../src/v2/index.js";

function rejects(run: () => unknown, pointer: string): DecodeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof DecodeError, `expected a DecodeError, got ${String(error)}`);
    assert.equal(error.pointer, pointer);
    return error;
  }
  assert.fail("the value was accepted");
}

test("a valid message is returned as it is, fields the schema does not name kept", () => {
  const wire = { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } }, extra: 1 };
  const decoded = v1.decode.SessionNotification(structuredClone(wire));
  assert.deepEqual(decoded, wire);
});

test("a wrong value is named by its JSON pointer", () => {
  const wire = { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 7 } } };
  const error = rejects(() => v1.decode.SessionNotification(wire), "/update/content/text");
  assert.match(error.message, /^\/update\/content\/text: expected a string, got number 7$/);
});

test("a missing required field is named", () => {
  rejects(() => v1.decode.PromptRequest({ prompt: [] }), "/sessionId");
});

test("an unknown tag is kept whole as the union's unknown variant, never rejected", () => {
  const wire = { sessionUpdate: "from_the_future", payload: { x: [1] } };
  const update = v1.decode.SessionUpdate(structuredClone(wire));
  assert.deepEqual(update, wire);
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      assert.fail("narrowed to a known variant");
      break;
    default:
      // The switch narrows: only variants without a known tag are left here.
      assert.equal(update.sessionUpdate, "from_the_future");
  }
});

test("an object without the tag is the union's default variant (v1 AuthMethod: agent)", () => {
  const method = v1.decode.AuthMethod({ id: "login", name: "Log in" });
  assert.equal(method.type, undefined);
  rejects(() => v1.decode.AuthMethod({ name: "Log in" }), "/id");
});

test("default-on-error drops only the bad field and keeps the message", () => {
  // SessionInfoUpdate's fields carry x-deserialize-default-on-error.
  const update = v1.decode.SessionUpdate({ sessionUpdate: "session_info_update", title: 42, updatedAt: "2026-11-22T00:00:00Z" });
  assert.deepEqual(update, { sessionUpdate: "session_info_update", updatedAt: "2026-11-22T00:00:00Z" });
});

test("a lenient rule never changes the value it is given: the message as received keeps what the decoded value drops", () => {
  // ToolCall's kind and status carry x-deserialize-default-on-error; PlanEntry's priority is
  // required, and the plan's entries skip invalid items. The wire value is what the client state
  // and a handler's raw params hold, as in the Python and Go runtimes.
  const wire = {
    sessionId: "s",
    update: { sessionUpdate: "tool_call", toolCallId: "t", title: "x", kind: "teleport", status: "paused", content: [] },
  };
  const given = structuredClone(wire);
  const decoded = v1.decode.SessionNotification(given);
  assert.deepEqual(given, wire, "the value given is unchanged");
  assert.deepEqual(decoded, { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "t", title: "x", content: [] } });
  const plan = { sessionUpdate: "plan", entries: [{ content: "a", status: "pending" }, { content: "b", priority: "low", status: "pending" }] };
  const planGiven = structuredClone(plan);
  assert.deepEqual(v1.decode.SessionUpdate(planGiven), { sessionUpdate: "plan", entries: [plan.entries[1]] });
  assert.deepEqual(planGiven, plan);
});

test("a shape of an anyOf that fails leaves the value whole for the next one", () => {
  // The first shape drops a default-on-error field, then fails on a later required one: the
  // second shape still sees that field.
  const decode = anyOf([
    struct([
      ["note", integer, DEFAULT_ON_ERROR],
      ["id", integer, REQUIRED],
    ]),
    struct([["note", string, REQUIRED]]),
  ]);
  assert.deepEqual(decode({ note: "kept" }), { note: "kept" });
});

test("absent, null and a value stay apart through the decoder", () => {
  const absent = v1.decode.SessionUpdate({ sessionUpdate: "session_info_update" });
  const cleared = v1.decode.SessionUpdate({ sessionUpdate: "session_info_update", title: null, _meta: null });
  assert.equal(Object.hasOwn(absent, "title"), false);
  assert.deepEqual(cleared, { sessionUpdate: "session_info_update", title: null, _meta: null });
});

test("integer ranges of the schema are checked (ProtocolVersion is a uint16)", () => {
  rejects(() => v1.decode.InitializeRequest({ protocolVersion: 70000 }), "/protocolVersion");
  rejects(() => v1.decode.InitializeRequest({ protocolVersion: 1.5 }), "/protocolVersion");
  assert.equal(v1.decode.InitializeRequest({ protocolVersion: 1 }).protocolVersion, 1);
});

test("v2 decoders are their own: v2's chunks carry a messageId", () => {
  assert.equal(v2.PROTOCOL_VERSION, 2);
  assert.equal(v1.PROTOCOL_VERSION, 1);
  const names = v2.METHODS.map((m) => m.name);
  assert.ok(names.includes("session/prompt"));
});

test("string lengths count code points, as JSON Schema does: maxLength of emoji (v2 IdempotencyKey)", () => {
  // "When present, the value is an opaque, case-sensitive string of 1 to 255 characters."
  const emoji = "\u{1f600}";
  const key = stringWith(1, null, 255);
  assert.equal(key(emoji.repeat(255)), emoji.repeat(255)); // 510 UTF-16 units
  assert.equal(key("k".repeat(255)), "k".repeat(255));
  assert.throws(() => key(emoji.repeat(256)), DecodeError);
  assert.throws(() => key("k".repeat(256)), DecodeError);
  assert.throws(() => key(""), DecodeError);
  // minLength counts them too: one emoji is one character, two UTF-16 units.
  assert.throws(() => stringWith(2, null)(emoji), DecodeError);
  assert.equal(stringWith(2, null, 2)(emoji + "k"), emoji + "k");
  // A lone surrogate is one character.
  assert.throws(() => stringWith(null, null, 1)("\ud83dk"), DecodeError);
  assert.equal(stringWith(null, null, 1)("\ud83d"), "\ud83d");
  // The generated v2 decoder carries the bounds.
  const prompt = { sessionId: "s", prompt: [{ type: "text", text: "hi" }] };
  assert.equal(v2.decode.PromptRequest({ ...prompt, idempotencyKey: emoji.repeat(255) }).idempotencyKey, emoji.repeat(255));
  rejects(() => v2.decode.PromptRequest({ ...prompt, idempotencyKey: emoji.repeat(256) }), "/idempotencyKey");
});
