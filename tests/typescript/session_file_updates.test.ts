// A FileSessionStore's history on disk (runtime/session_file_updates.ts): "nothing acknowledged
// is ever lost" — a turn's updates are in the store before its answer, so a store opened again
// (a restart) replays them; a line the process died writing was never acknowledged and is cut
// off; the log stays bounded by what the sessions keep. The corpus's reopen cases
// (tests/corpus/session_store/cases.json) hold the replays themselves on every backend.
import assert from "node:assert/strict";
import { appendFile, mkdir, mkdtemp, readFile, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FileSessionStore } from "../src/index.js";

const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const texts = (updates: readonly unknown[]) => updates.map((update) => (update as ReturnType<typeof chunk>).content.text);

async function folder(): Promise<string> {
  return mkdtemp(join(tmpdir(), "acp-updates-"));
}

test("a line the process died writing is cut off and the next update follows the last whole one", async () => {
  const path = join(await folder(), "sessions.json");
  const store = await FileSessionStore.open(path);
  await store.appendUpdates("s", [chunk("1"), chunk("2")]);
  await store.close();
  await appendFile(`${path}.updates`, '["s",3,{"sessionUpd');
  const again = await FileSessionStore.open(path);
  assert.deepEqual(texts((await again.readUpdates("s")).updates), ["1", "2"]);
  await again.appendUpdates("s", [chunk("3")]);
  await again.close();
  const third = await FileSessionStore.open(path);
  const replay = await third.readUpdates("s");
  assert.deepEqual([texts(replay.updates), replay.dropped], [["1", "2", "3"], 0]);
  await third.close();
});

test("the log is written again with what the sessions keep once it holds more than twice that", async () => {
  const path = join(await folder(), "sessions.json");
  const store = await FileSessionStore.open(path, { historyLimit: 5 });
  for (let turn = 1; turn <= 200; turn++) await store.appendUpdates(turn % 2 ? "a" : "b", [chunk(String(turn))]);
  await store.close();
  const lines = (await readFile(`${path}.updates`, "utf8")).split("\n").length - 1;
  assert.ok(lines <= 1 + 2 * 10 + 64, `the log holds ${lines} lines for 10 kept updates`);
  const again = await FileSessionStore.open(path, { historyLimit: 5 });
  const a = await again.readUpdates("a");
  const b = await again.readUpdates("b");
  assert.deepEqual([texts(a.updates), a.dropped], [["191", "193", "195", "197", "199"], 95]);
  assert.deepEqual([texts(b.updates), b.dropped], [["192", "194", "196", "198", "200"], 95]);
  await again.close();
});

test("a history log of another format is refused in one line naming it", async () => {
  const path = join(await folder(), "sessions.json");
  await writeFile(`${path}.updates`, '{"format":"something-else"}\n');
  await assert.rejects(FileSessionStore.open(path), { message: `${path}.updates is not a session history of format acp-codegen-session-updates/jsonl-1` });
});

test("a broken line in the middle of the log is refused naming its line", async () => {
  const path = join(await folder(), "sessions.json");
  await writeFile(`${path}.updates`, '{"format":"acp-codegen-session-updates/jsonl-1"}\n["s",1,{}]\nnot json\n["s",2,{}]\n');
  await assert.rejects(FileSessionStore.open(path), { message: `${path}.updates:3: not a [sessionId, seq, update] line` });
});

test("after a write of the log fails every later append is refused with its error, as Go's store refuses every change", async () => {
  const path = join(await folder(), "sessions.json");
  const store = await FileSessionStore.open(path);
  await mkdir(`${path}.updates`); // the log cannot be opened for appending
  await assert.rejects(store.appendUpdates("s", [chunk("1")]), { code: "EISDIR" });
  await rmdir(`${path}.updates`);
  await assert.rejects(store.appendUpdates("s", [chunk("2")]), { code: "EISDIR" });
  await store.close();
});
