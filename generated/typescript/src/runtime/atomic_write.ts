// Copied by acp-codegen from templates/typescript/runtime/atomic_write.ts: edit it there, then run:
//   make generate
/**
 * A file replaced whole, atomically and durably (the store's file, a history log written again).
 * Layer: typed layer (storage of a `FileSessionStore`).
 */

import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Replaces `path` by `text` atomically and durably: a temporary file beside it, fsync, rename,
 * fsync of the folder (the rename itself is on disk). */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const file = await open(temporary, "wx", 0o600);
  let written = false;
  try {
    await file.writeFile(text, "utf8");
    await file.sync();
    written = true;
  } finally {
    await file.close();
    if (!written) await rm(temporary, { force: true });
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(dirname(path), "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
