// The store corpus (tests/corpus/session_store/cases.json) on every backend of the TypeScript
// runtime: memory, a file and PostgreSQL, the same cases and the same results as the Python and
// Go runtimes. PostgreSQL runs where ACP_TEST_POSTGRES names a server (the pytest run starts one
// and runs this file: tests/runtime/test_session_store_postgres_runtimes.py); elsewhere its cases
// are skipped, saying so. "NOW" in a case is the store's clock.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FileSessionStore, MemorySessionStore, RequestError, type SessionRecord, type SessionStoreOptions } from "../src/index.js";
import { PostgresSessionStore } from "../src/runtime/session_postgres.js";
import { replayed, replayWanted } from "../src/runtime/session_resume.js";
import { BEHAVIOUR as V2 } from "../src/v2/behaviour.js";

interface Step {
  create?: { id: string; cwd: string; title?: string | null };
  change?: { id: string; title?: string | null; meta?: Record<string, unknown> | null; updatedAt?: string | null };
  applyUpdate?: { id: string; update: object };
  get?: string;
  record?: { id: string; updates: unknown[] };
  replay?: string;
  /** A v2 `session/resume` with these params (`replayFrom` as given): what it replays. */
  resume?: { id: string; replayFrom?: unknown };
  list?: { cwd?: string | null; cursor?: string };
  expect?: unknown;
  more?: boolean;
  sessions?: unknown;
  error?: number | string;
  /** Close the store and open it again where it keeps its sessions (skipped on memory). */
  reopen?: boolean;
}

interface Case {
  case: string;
  options?: { policy?: "merge" | "replace" | "patch"; titleLimit?: number; metaLimit?: number; pageSize?: number; historyLimit?: number };
  steps: Step[];
}

type Store = MemorySessionStore & { close?: () => Promise<void> };

const NOW = "2026-11-21T12:00:00Z";
const POSTGRES = process.env["ACP_TEST_POSTGRES"];

/** tests/corpus/session_store/cases.json, found above this test (it runs from .build/typescript/dist-test). */
function corpus(): Case[] {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(folder, "tests", "corpus", "session_store", "cases.json");
    if (existsSync(candidate)) return JSON.parse(readFileSync(candidate, "utf8")) as Case[];
    const parent = dirname(folder);
    if (parent === folder) throw new Error("tests/corpus/session_store/cases.json not found above this test");
    folder = parent;
  }
}

/** Backend → opens a store in `place` (a case's own folder name or schema suffix). */
const BACKENDS: ReadonlyArray<[string, (options: SessionStoreOptions, place: string) => Promise<Store>]> = [
  ["memory", async (options) => new MemorySessionStore(options)],
  ["file", async (options, place) => FileSessionStore.open(join(tmpdir(), `acp-store-${place}`, "sessions.json"), options)],
  ["postgres", async (options, place) => PostgresSessionStore.open(POSTGRES ?? "", { ...options, schema: `corpus_${place}` })],
];

function wire(record: SessionRecord | undefined): unknown {
  return record === undefined ? null : { sessionId: record.sessionId, cwd: record.cwd, title: record.title, updatedAt: record.updatedAt, _meta: record.meta };
}

function stamped(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('"NOW"', JSON.stringify(NOW)));
}

async function run(store: Store, step: Step, cursor: string | undefined): Promise<unknown> {
  if (step.create) return wire(await store.create(step.create.id, step.create.cwd, { title: step.create.title ?? null }));
  if (step.change) {
    const { id, ...change } = step.change;
    if (change.updatedAt !== undefined) change.updatedAt = stamped(change.updatedAt) as string | null;
    return store.change(id, change as Parameters<Store["change"]>[1]);
  }
  if (step.applyUpdate) return wire(await store.applyUpdate(step.applyUpdate.id, step.applyUpdate.update));
  if (step.get !== undefined) return wire(await store.get(step.get));
  if (step.record) return store.appendUpdates(step.record.id, step.record.updates);
  if (step.replay !== undefined) {
    const { updates, dropped } = await store.readUpdates(step.replay);
    return { updates, dropped };
  }
  if (step.resume !== undefined) return resumed(store, step.resume);
  const list = step.list ?? {};
  return store.listSessions(list.cwd, list.cursor === "next" ? cursor : list.cursor);
}

/** What a v2 `session/resume` with these params replays from the store before its current state
 * update (the edition's rule, `BEHAVIOUR.resume`): nothing, or the history then `replay_complete`
 * (-32602 for another cursor). */
async function resumed(store: Store, args: { id: string; replayFrom?: unknown }): Promise<unknown[]> {
  const rule = V2.resume;
  assert.ok(rule !== null, "v2 has a resume rule");
  const { id, ...params } = args;
  if (!replayWanted(rule, params)) return [];
  return replayed(rule, (await store.readUpdates(id)).updates);
}

for (const [backend, open] of BACKENDS) {
  for (const entry of corpus()) {
    const reopens = entry.steps.some((step) => step.reopen === true);
    const skip =
      backend === "postgres" && POSTGRES === undefined
        ? "no PostgreSQL server (ACP_TEST_POSTGRES unset)"
        : backend === "memory" && reopens
          ? "a memory store is gone with its process: nothing to open again"
          : false;
    test(`${backend}: ${entry.case}`, { skip }, async () => {
      const place = randomUUID().replaceAll("-", "");
      const options = { ...entry.options, clock: () => NOW };
      if (backend === "file") await mkdir(join(tmpdir(), `acp-store-${place}`));
      let store = await open(options, place);
      try {
        let cursor: string | undefined;
        for (const [number, step] of entry.steps.entries()) {
          const where = `step ${number}: ${JSON.stringify(step).slice(0, 120)}`;
          if (step.reopen === true) {
            await store.close?.();
            store = await open(options, place);
            continue;
          }
          if (step.error !== undefined) {
            const error = await run(store, step, cursor).then(
              () => assert.fail(`${where}: no error`),
              (thrown: unknown) => thrown,
            );
            if (typeof step.error === "number") assert.equal(error instanceof RequestError && error.code, step.error, where);
            else assert.match(String(error), new RegExp(step.error), where);
            continue;
          }
          const outcome = await run(store, step, cursor);
          if (step.list) {
            const page = outcome as { sessions: Array<{ sessionId: string }>; nextCursor?: string };
            assert.deepEqual(page.sessions.map((session) => session.sessionId), step.expect, where);
            assert.equal(page.nextCursor !== undefined, step.more, where);
            if (step.sessions !== undefined) assert.deepEqual(page.sessions, stamped(step.sessions), where);
            cursor = page.nextCursor;
          } else if ("expect" in step) {
            assert.deepEqual(outcome, stamped(step.expect), where);
          }
        }
      } finally {
        await store.close?.();
        if (backend === "file") await rm(join(tmpdir(), `acp-store-${place}`), { recursive: true, force: true });
      }
    });
  }
}
