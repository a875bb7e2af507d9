// The client's file access (runtime/file_service.ts): a file outside the allowed roots is never
// served, whatever the path says.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { FileService, INVALID_PARAMS, RESOURCE_NOT_FOUND } from "../src/index.js";
import { rejection } from "./support.js";

function tree(): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), "acp-fs-"));
  const root = join(base, "project");
  mkdirSync(root);
  writeFileSync(join(root, "notes.txt"), "one\ntwo\nthree\n");
  const outside = join(base, "secret.txt");
  writeFileSync(outside, "secret");
  symlinkSync(outside, join(root, "link.txt"));
  return { root, outside };
}

test("a file under a root is read, whole or by lines", async () => {
  const { root } = tree();
  const files = new FileService([root]);
  assert.equal(await files.readTextFile(join(root, "notes.txt")), "one\ntwo\nthree\n");
  assert.equal(await files.readTextFile(join(root, "notes.txt"), 2, 1), "two\n");
});

test("paths outside the roots are refused: absolute, .. and symlinks alike", async () => {
  const { root, outside } = tree();
  const files = new FileService([root]);
  for (const path of [outside, join(root, "..", "secret.txt"), join(root, "link.txt")]) {
    const error = await rejection(files.readTextFile(path));
    assert.equal(error.code, INVALID_PARAMS);
    assert.match(error.message, /outside the allowed roots/);
  }
  assert.equal((await rejection(files.readTextFile("notes.txt"))).code, INVALID_PARAMS);
});

test("a missing file is -32002 and a directory is not a file", async () => {
  const { root } = tree();
  const files = new FileService([root]);
  const missing = await rejection(files.readTextFile(join(root, "missing.txt")));
  assert.equal(missing.code, RESOURCE_NOT_FOUND);
  // The code's title in the schema first: agents tell "not found" by these words (gemini-cli).
  assert.match(missing.message, /^Resource not found: no such file/);
  assert.match((await rejection(files.readTextFile(root))).message, /not a regular file/);
});

test("writes land atomically under a root and never outside", async () => {
  const { root, outside } = tree();
  const files = new FileService([root]);
  await files.writeTextFile(join(root, "new.txt"), "fresh");
  assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "fresh");
  await rejection(files.writeTextFile(join(root, "link.txt"), "overwritten"));
  assert.equal(readFileSync(outside, "utf8"), "secret");
});
