// The client-state corpus (tests/corpus/state/, its format in README.md there) replayed on the
// TypeScript runtime: each case is a fresh `ClientState` of the edition's generated table, fed the
// case's state messages in order; after each one the changes it reports and the state's snapshot
// must equal the line's, as JSON values. The Python runtime replays the same files
// (tests/runtime/test_session_state.py), and so does Go.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ClientState, type StateMessage, type StateTable } from "../src/index.js";
import { STATE_TABLE as V1 } from "../src/v1/index.js";
import { STATE_TABLE as V2_UNSTABLE } from "../src/v2/unstable/index.js";

interface Step {
  case: string;
  message: StateMessage;
  changes: unknown[];
  expect: unknown;
}

/** Each file is replayed on its protocol's widest table (v2: the unstable schema's). */
const TABLES: ReadonlyArray<[string, StateTable]> = [
  ["v1", V1],
  ["v2", V2_UNSTABLE],
];

/** tests/corpus/state, found above this test (it runs from .build/typescript/dist-test). */
function corpusFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(folder, "tests", "corpus", "state");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(folder);
    if (parent === folder) throw new Error("tests/corpus/state not found above this test");
    folder = parent;
  }
}

function steps(protocol: string): Step[] {
  const text = readFileSync(join(corpusFolder(), `${protocol}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Step);
}

/** Consecutive lines with the same name are one case, in file order. */
function cases(protocol: string): Array<[string, Step[]]> {
  const found: Array<[string, Step[]]> = [];
  for (const step of steps(protocol)) {
    const last = found[found.length - 1];
    if (last !== undefined && last[0] === step.case) last[1].push(step);
    else found.push([step.case, [step]]);
  }
  return found;
}

for (const [protocol, table] of TABLES) {
  for (const [name, group] of cases(protocol)) {
    for (const fast of [true, false]) {
      // `fast: false`: the generic path alone (the fast path is a shortcut to the same state).
      test(`${protocol}${fast ? "" : " (generic path)"}: ${name}`, () => {
        const state = new ClientState(table, () => {}, { fast });
        group.forEach((step, index) => {
          const applied = state.apply(step.message);
          assert.deepEqual(applied.changes, step.changes, `step ${index}: changes`);
          assert.deepEqual(state.snapshot(), step.expect, `step ${index}: state`);
        });
      });
    }
  }
}

test("the corpus has cases in both files, and case names are unique per file", () => {
  for (const [protocol] of TABLES) {
    const names = cases(protocol).map(([name]) => name);
    assert.ok(names.length > 0, protocol);
    assert.equal(new Set(names).size, names.length, protocol);
  }
});

test("applying never throws on odd messages, and the state stays plain JSON", () => {
  const state = new ClientState(V2_UNSTABLE);
  const odd: unknown[] = [
    {},
    null,
    { method: 3 },
    { method: "session/update" },
    { method: "session/update", params: null },
    { method: "session/update", params: { sessionId: "s", update: null } },
    { method: "session/update", params: { sessionId: "s", update: { sessionUpdate: 1 } } },
    { method: "session/update", params: { sessionId: 5, update: {} } },
    { method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", __proto__: { x: 1 } } } },
    { method: "auth/status", params: {}, result: null },
  ];
  for (const message of odd) state.apply(message as StateMessage);
  const snapshot = state.snapshot();
  assert.deepEqual(JSON.parse(JSON.stringify(snapshot)), snapshot);
});

test("a snapshot is a copy: changing it leaves the state as it was", () => {
  const state = new ClientState(V2_UNSTABLE);
  const update = { sessionUpdate: "plan_update", plan: { planId: "p", entries: [] as string[] } };
  state.apply({ method: "session/update", params: { sessionId: "s", update } });
  const plans = state.snapshot().sessions["s"]?.targets["plan"] as Array<{ value: { entries: string[] } }>;
  plans[0]?.value.entries.push("x");
  assert.deepEqual(state.session("s").entries("plan"), [{ planId: "p", entries: [] }]);
  assert.deepEqual(update.plan.entries, [], "the message applied is never changed");
});

test("a listener hears each applied or logged message of its session, after the state changed, and can unsubscribe", () => {
  const state = new ClientState(V2_UNSTABLE);
  const heard: unknown[] = [];
  const stop = state.subscribe((applied) => heard.push([applied.changes.map((c) => c.target), applied.logged, state.session("a").get("state")]), "a");
  state.feed({ method: "session/update", params: { sessionId: "a", update: { sessionUpdate: "state_update", state: "running" } } });
  state.feed({ method: "session/update", params: { sessionId: "b", update: { sessionUpdate: "state_update", state: "idle" } } });
  state.feed({ method: "session/update", params: { sessionId: "a", update: { sessionUpdate: "_vendor", x: 1 } } });
  state.feed({ method: "session/update", params: { sessionId: "a", update: { sessionUpdate: "notice", severity: "info", title: "t" } } });
  stop();
  state.feed({ method: "session/update", params: { sessionId: "a", update: { sessionUpdate: "state_update", state: "idle" } } });
  assert.deepEqual(heard, [
    [["state"], false, { state: "running" }],
    [[], true, { state: "running" }],
  ]);
});

test("a listener that throws is reported, and the others still hear", () => {
  const problems: string[] = [];
  const state = new ClientState(V2_UNSTABLE, (message) => problems.push(message));
  let heard = 0;
  state.subscribe(() => {
    throw new Error("boom");
  });
  state.subscribe(() => void heard++);
  state.feed({ method: "session/update", params: { sessionId: "a", update: { sessionUpdate: "state_update", state: "running" } } });
  assert.equal(heard, 1);
  assert.equal(problems.length, 1);
  assert.match(problems[0] as string, /boom/);
});

test("appending never changes a list a message gave, and a snapshot taken before later chunks keeps its content", () => {
  const state = new ClientState(V2_UNSTABLE);
  const given = [{ type: "text", text: "a" }];
  const chunk = (text: string): StateMessage => ({
    method: "session/update",
    params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } } },
  });
  state.apply({ method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message", messageId: "m", content: given } } });
  state.apply(chunk("b"));
  const before = state.snapshot();
  state.apply(chunk("c"));
  assert.deepEqual(given, [{ type: "text", text: "a" }]);
  assert.deepEqual(before.sessions["s"]?.targets["agentMessage"], [{ id: "m", value: { messageId: "m", content: [given[0], { type: "text", text: "b" }] } }]);
  assert.equal((state.session("s").entries("agentMessage")[0] as { content: unknown[] }).content.length, 3);
});

test("chunks of messages and tool calls interleaved each end in their own entry, on either path, and no message's list changes", () => {
  for (const fast of [true, false]) {
    const state = new ClientState(V2_UNSTABLE, () => {}, { fast });
    const given = [{ type: "text", text: "u" }];
    const update = (update: object): StateMessage => ({ method: "session/update", params: { sessionId: "s", update } });
    const text = (text: string): object => ({ type: "text", text });
    state.apply(update({ sessionUpdate: "tool_call_update", toolCallId: "t", title: "Read", content: given }));
    for (const word of ["a", "b", "c"]) {
      state.apply(update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text(word) }));
      state.apply(update({ sessionUpdate: "agent_message_chunk", messageId: "m2", content: text(word.toUpperCase()) }));
      state.apply(update({ sessionUpdate: "tool_call_content_chunk", toolCallId: "t", content: { type: "content", content: text(word) } }));
    }
    const session = state.session("s");
    const contents = (session.entries("agentMessage") as Array<{ content: Array<{ text: string }> }>).map((m) => m.content.map((block) => block.text).join(""));
    assert.deepEqual(contents, ["abc", "ABC"], `fast: ${fast}`);
    assert.equal((session.entries("toolCall")[0] as { content: unknown[] }).content.length, 4, `fast: ${fast}`);
    assert.deepEqual(given, [{ type: "text", text: "u" }], `fast: ${fast}`);
  }
});

test("an entry read with entries() or get() is never changed by later chunks, on either path", () => {
  for (const fast of [true, false]) {
    const state = new ClientState(V2_UNSTABLE, () => {}, { fast });
    const chunk = (text: string): StateMessage => ({
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text } } },
    });
    const texts = (entry: unknown): string => (entry as { content: Array<{ text: string }> }).content.map((block) => block.text).join("");
    state.apply(chunk("a"));
    state.apply(chunk("b"));
    const session = state.session("s");
    const [held] = session.entries("agentMessage");
    state.apply(chunk("c"));
    state.apply(chunk("d"));
    const mapping = session.get("agentMessage") as Map<string, unknown>;
    const fromGet = mapping.get("m");
    state.apply(chunk("e"));
    const fromMapping = mapping.get("m");
    state.apply(chunk("f"));
    assert.equal(texts(held), "ab", `fast: ${fast}`);
    assert.equal(texts(fromGet), "abcd", `fast: ${fast}`);
    assert.equal(texts(fromMapping), "abcde", `fast: ${fast}`);
    assert.equal(texts(session.entries("agentMessage")[0]), "abcdef", `fast: ${fast}`);
  }
});

test("reading a session no message touched makes nothing appear; its first message fills the state read", () => {
  for (const fast of [true, false]) {
    const state = new ClientState(V2_UNSTABLE, () => {}, { fast });
    const early = state.session("s");
    assert.deepEqual(state.session("s-typo").snapshot(), { targets: {}, log: [], problems: [] });
    assert.deepEqual(state.snapshot(), { agent: { targets: {}, log: [], problems: [] }, sessions: {} }, `fast: ${fast}`);
    const chunk: StateMessage = {
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "a" } } },
    };
    state.apply(chunk);
    state.apply(chunk);
    assert.deepEqual(Object.keys(state.snapshot().sessions), ["s"], `fast: ${fast}`);
    assert.equal(state.session("s"), early, `fast: ${fast}`);
    assert.equal((early.entries("agentMessage")[0] as { content: unknown[] }).content.length, 2, `fast: ${fast}`);
  }
});
