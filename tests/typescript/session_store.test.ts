// `session/list` from a store (runtime/session_store.ts, session_file.ts), as the Python runtime's
// SessionStore: session-list.mdx "Cursor-based pagination" (`nextCursor` "present if there are
// more results", an opaque token), advertised in `initialize` where the edition says (v1
// `agentCapabilities.sessionCapabilities.list`, v2 `capabilities.session`); `session_info_update`
// "Only include fields that have changed"; a file-backed store loses nothing acknowledged.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FileSessionStore, MemorySessionStore, RequestError, type SessionPage } from "../src/index.js";
import * as v1 from "../src/v1/index.js";
import * as v2 from "../src/v2/index.js";
import { connected, rejection } from "./support.js";
import { connectedV2 } from "./v2_support.js";

const NOW = "2026-11-21T12:00:00Z";
const ids = (page: SessionPage): string[] => page.sessions.map((s) => s.sessionId);

async function sessionsIn(store: MemorySessionStore, cwds: string[]): Promise<void> {
  for (const [index, cwd] of cwds.entries()) await store.create(`s${index}`, cwd);
}

test("listSessions pages in the order sessions were recorded; nextCursor only while more follow", async () => {
  const store = new MemorySessionStore({ pageSize: 2, clock: () => NOW });
  await sessionsIn(store, ["/a", "/a", "/b", "/a", "/a"]);
  const first = await store.listSessions();
  assert.deepEqual(first.sessions[0], { sessionId: "s0", cwd: "/a", updatedAt: NOW });
  const second = await store.listSessions(null, first.nextCursor);
  const third = await store.listSessions(undefined, second.nextCursor);
  assert.deepEqual([ids(first), ids(second), ids(third)], [["s0", "s1"], ["s2", "s3"], ["s4"]]);
  assert.equal(Object.hasOwn(third, "nextCursor"), false);
  // "Filter sessions by working directory".
  const inA = await store.listSessions("/a");
  assert.deepEqual([ids(inA), ids(await store.listSessions("/a", inA.nextCursor))], [["s0", "s1"], ["s3", "s4"]]);
});

test("a cursor this store did not make is -32602 Invalid cursor", async () => {
  const store = new MemorySessionStore();
  for (const cursor of ["nonsense", Buffer.from('{"after":-1}').toString("base64url"), Buffer.from('{"after":"1"}').toString("base64url")]) {
    const error = await rejection(store.listSessions(null, cursor));
    assert.deepEqual([error.code, error.message, error.data], [-32602, "Invalid cursor", { cursor }]);
  }
});

test("change: only the changed fields, null for a cleared one, updatedAt stamped; nothing changed: null", async () => {
  const store = new MemorySessionStore({ clock: () => NOW });
  await store.create("s", "/w", { title: "old" });
  assert.deepEqual(await store.change("s", { title: "new" }), { sessionUpdate: "session_info_update", title: "new", updatedAt: NOW });
  assert.equal(await store.change("s", { title: "new" }), null);
  assert.deepEqual(await store.change("s", { title: null, updatedAt: "2027-01-01T00:00:00Z" }), {
    sessionUpdate: "session_info_update",
    title: null,
    updatedAt: "2027-01-01T00:00:00Z",
  });
  await assert.rejects(store.change("nobody", { title: "x" }), /unknown session "nobody": create\(\) it first/);
});

test("guards: a title is cut at 500 characters; a _meta over the limit is refused and nothing changes", async () => {
  const problems: string[] = [];
  const store = new MemorySessionStore({ metaLimit: 64, clock: () => NOW, onProblem: (message) => problems.push(message) });
  const record = await store.newSession("/w", { title: "t".repeat(600) });
  assert.match(record.sessionId, /^sess_[0-9a-f]{32}$/);
  assert.equal(record.title?.length, 500);
  assert.equal(await store.change(record.sessionId, { meta: { big: "x".repeat(100) } }), null);
  assert.equal((await store.get(record.sessionId))?.meta, null);
  assert.deepEqual(problems, [`session ${record.sessionId}: _meta of 110 bytes rejected (limit 64); state unchanged`]);
});

test("v1: an agent with a sessionStore answers session/list from it and advertises agentCapabilities.sessionCapabilities.list", async () => {
  const store = new MemorySessionStore({ pageSize: 1, clock: () => NOW });
  await sessionsIn(store, ["/a", "/b"]);
  const agent: v1.Agent = {
    sessionStore: store,
    async initialize() {
      return { protocolVersion: 1 };
    },
  };
  const { clientSide } = connected(agent, {});
  const init = await clientSide.agent.initialize({ protocolVersion: 1 });
  assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.list, {});
  const first = await clientSide.agent.sessionList({});
  assert.deepEqual(first.sessions, [{ sessionId: "s0", cwd: "/a", updatedAt: NOW }]);
  const second = await clientSide.agent.sessionList({ cursor: first.nextCursor ?? null });
  assert.deepEqual([second.sessions.map((s) => s.sessionId), second.nextCursor], [["s1"], undefined]);
  assert.equal((await rejection(clientSide.agent.sessionList({ cursor: "nonsense" }))).code, -32602);
  await clientSide.close();
});

test("v1: without a store session/list is -32601 and not advertised", async () => {
  const { clientSide } = connected({ async initialize() { return { protocolVersion: 1 }; } }, {});
  const init = await clientSide.agent.initialize({ protocolVersion: 1 });
  assert.equal(init.agentCapabilities?.sessionCapabilities?.list, undefined);
  const error = await rejection(clientSide.agent.sessionList({}));
  assert.ok(error instanceof RequestError && error.code === -32601);
  await clientSide.close();
});

test("v2: a store serves session/list (with the rest of the baseline: capabilities.session) and takes v2's _meta policy (patch)", async () => {
  const store = new MemorySessionStore({ clock: () => NOW });
  const agent: v2.Agent = {
    sessionStore: store,
    async initialize(params) {
      return { protocolVersion: params.protocolVersion, info: { name: "stored", version: "0" } };
    },
    async sessionNew() {
      return { sessionId: "s" };
    },
    async sessionResume() {
      return {};
    },
    async sessionPrompt() {
      return "end_turn";
    },
  };
  const { clientSide } = connectedV2(agent, {});
  const init = await clientSide.agent.initialize({ protocolVersion: 2, info: { name: "c", version: "0" } });
  assert.deepEqual(init.capabilities, { session: {} });
  await store.create("s", "/w");
  await store.change("s", { meta: { a: { x: 1 }, keep: true } });
  await store.change("s", { meta: { a: { y: 2 } } }); // patch: the top-level key is replaced whole
  assert.deepEqual((await clientSide.agent.sessionList({})).sessions, [{ sessionId: "s", cwd: "/w", updatedAt: NOW, _meta: { a: { y: 2 }, keep: true } }]);
  await clientSide.close();
});

async function folder(): Promise<string> {
  return mkdtemp(join(tmpdir(), "acp-sessions-"));
}

test("a file store keeps every change across reopening, concurrent ones included, and leaves no temporary file", async () => {
  const dir = await folder();
  const path = join(dir, "sessions.json");
  const store = await FileSessionStore.open(path, { clock: () => NOW });
  await Promise.all(Array.from({ length: 40 }, (_, index) => store.create(`s${index}`, "/w")));
  await store.change("s7", { title: "seven", meta: { k: 1 } });
  const again = await FileSessionStore.open(path, { clock: () => NOW, pageSize: 100 });
  assert.deepEqual(ids(await again.listSessions()), Array.from({ length: 40 }, (_, index) => `s${index}`));
  assert.deepEqual(await again.get("s7"), { sessionId: "s7", cwd: "/w", title: "seven", updatedAt: NOW, meta: { k: 1 } });
  await again.create("s40", "/w"); // positions go on after the file's
  assert.equal(ids(await again.listSessions()).at(-1), "s40");
  assert.deepEqual(await readdir(dir), ["sessions.json"]);
});

test("a file that is not a store of this format is refused with one line, untouched", async () => {
  const path = join(await folder(), "other.json");
  await writeFile(path, '{"format":"something else"}');
  await assert.rejects(FileSessionStore.open(path), { message: `${path} is not a session store of format acp-codegen-session-store/json-1` });
  assert.equal(await readFile(path, "utf8"), '{"format":"something else"}');
});

test("a store in a folder that does not exist is refused with one line naming the folder", async () => {
  const missing = join(await folder(), "missing");
  const path = join(missing, "sessions.json");
  await assert.rejects(FileSessionStore.open(path), { message: `${path}: cannot create the store: no folder ${missing}` });
});

test("a process killed at any moment loses no session it had acknowledged", async () => {
  const path = join(await folder(), "sessions.json");
  const runtime = new URL("../src/index.js", import.meta.url).href;
  const program = `
    const { FileSessionStore } = await import(${JSON.stringify(runtime)});
    const store = await FileSessionStore.open(${JSON.stringify(path)});
    for (let index = 0; ; index++) {
      await store.create("s" + index, "/w");
      process.stdout.write("s" + index + "\\n");
    }`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", program], { stdio: ["ignore", "pipe", "inherit"] });
  let acknowledged: string[] = [];
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    acknowledged = output.split("\n").slice(0, -1);
    if (acknowledged.length >= 30) child.kill("SIGKILL");
  });
  await new Promise((resolve) => child.once("exit", resolve));
  assert.ok(acknowledged.length >= 30, `the writer acknowledged only ${acknowledged.length}`);
  const store = await FileSessionStore.open(path, { pageSize: 1_000_000 });
  const kept = new Set(ids(await store.listSessions()));
  assert.deepEqual(acknowledged.filter((id) => !kept.has(id)), []);
});
