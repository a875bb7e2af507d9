// `session_info_update` semantics (runtime/session_info.ts): the same worked example as the
// Python tests (tests/runtime/test_session_meta.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { EMPTY_SESSION_INFO, applySessionInfoUpdate, mergeMeta, type SessionInfo } from "../src/index.js";

test("absent, null and a value are three different updates", () => {
  // "omitted fields are left unchanged"; "Set to `null` to clear".
  const info: SessionInfo = { title: "old", updatedAt: "2026-11-21T00:00:00Z", meta: { a: 1 } };
  assert.deepEqual(applySessionInfoUpdate(info, {}), info);
  assert.equal(applySessionInfoUpdate(info, { title: null }).title, null);
  assert.equal(applySessionInfoUpdate(info, { title: "t" }).title, "t");
});

test("_meta null clears it all, and the merge and replace policies differ", () => {
  const info: SessionInfo = { ...EMPTY_SESSION_INFO, meta: { a: { b: 1, c: 2 } } };
  assert.equal(applySessionInfoUpdate(info, { _meta: null }).meta, null);
  const patch = { _meta: { a: { b: null } } };
  assert.deepEqual(applySessionInfoUpdate(info, patch).meta, { a: { c: 2 } });
  assert.deepEqual(applySessionInfoUpdate(info, patch, "replace").meta, { a: { b: null } });
});

test("a field of the wrong type is dropped and the rest applies", () => {
  // x-deserialize-default-on-error: a numeric title is treated as absent.
  const info: SessionInfo = { ...EMPTY_SESSION_INFO, title: "keep" };
  const updated = applySessionInfoUpdate(info, { title: 42, updatedAt: "2026-11-21T08:00:00Z" });
  assert.deepEqual(updated, { title: "keep", updatedAt: "2026-11-21T08:00:00Z", meta: null });
});

test("three updates in order: each applies to the result of the one before", () => {
  let info = applySessionInfoUpdate(EMPTY_SESSION_INFO, { title: "Fix CI", _meta: { "zed.dev": { pin: true } } });
  assert.deepEqual(info, { title: "Fix CI", updatedAt: null, meta: { "zed.dev": { pin: true } } });
  info = applySessionInfoUpdate(info, { _meta: { "zed.dev": { color: "red" }, x: 1 } });
  assert.deepEqual(info.meta, { "zed.dev": { pin: true, color: "red" }, x: 1 });
  info = applySessionInfoUpdate(info, { title: null, _meta: { "zed.dev": { pin: null } } });
  assert.deepEqual(info, { title: null, updatedAt: null, meta: { "zed.dev": { color: "red" }, x: 1 } });
});

test("merging never changes nor shares its inputs", () => {
  const stored = { k: { deep: [1, 2] } };
  const patch = { k: { other: { x: 1 } } };
  const merged = mergeMeta(stored, patch);
  (merged.k as { deep: number[] }).deep.push(3);
  ((merged.k as { other: { x: number } }).other).x = 2;
  assert.deepEqual(stored, { k: { deep: [1, 2] } });
  assert.deepEqual(patch, { k: { other: { x: 1 } } });
});
