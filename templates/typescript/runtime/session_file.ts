/**
 * A session store kept in a file: `FileSessionStore`, the `MemorySessionStore` whose every change
 * is acknowledged only once it is on disk. Layer: typed layer (session_store.ts).
 *
 * Nothing acknowledged is lost, whatever moment the process dies at: the whole store is written
 * to a temporary file beside the store's file, flushed to disk (`fsync`), renamed over it (an
 * atomic replace on POSIX file systems) and the folder flushed too, so the file is always either
 * the old store or the new one, never a mix. Changes made while a write is under way share the
 * next write. One process writes a store file at a time (a second one would overwrite the
 * first's changes); the Python runtime's SQLite store is the one to share between processes.
 *
 * The updates each session sent (what `session/load` replays) are on disk too, in a log beside
 * the file (`<path>.updates`, session_file_updates.ts): appended, not the whole store written
 * again per turn.
 */

import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { writeAtomically } from "./atomic_write.js";
import { type LogContent, readUpdateLog, UpdateLog, updatesPath } from "./session_file_updates.js";
import { DEFAULT_HISTORY_LIMIT } from "./session_history.js";
import { MemorySessionStore, type SessionRecord, type SessionStoreOptions, type StoreSnapshot } from "./session_store.js";

/** The format marker a store file carries; any other file is refused. */
export const SESSION_FILE_FORMAT = "acp-codegen-session-store/json-1";

interface StoreFile {
  readonly format: string;
  readonly next: number;
  readonly sessions: ReadonlyArray<readonly [number, SessionRecord]>;
}

export class FileSessionStore extends MemorySessionStore {
  /** The write under way, if any. */
  private writing: Promise<void> | null = null;
  /** The next write, shared by the changes made while one is under way. */
  private queued: Promise<void> | null = null;

  /** The history's log (session_file_updates.ts). */
  private readonly updates: UpdateLog;

  private constructor(
    readonly path: string,
    options: SessionStoreOptions,
    log: LogContent,
  ) {
    super(options);
    this.updates = new UpdateLog(updatesPath(path), log);
  }

  /** The store kept in `path` (created on its first change when there is no such file). Rejects
   * with one line for a file that is not a store of this format, or a folder that does not exist
   * (not at the first change, naming a temporary file). */
  static async open(path: string, options: SessionStoreOptions = {}): Promise<FileSessionStore> {
    const log = await readUpdateLog(updatesPath(path), options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
    const store = new FileSessionStore(path, options, log);
    for (const [sessionId, history] of log.histories) store.history.all.set(sessionId, history);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      const folder = dirname(path);
      const found = await stat(folder).catch(() => null);
      if (found === null || !found.isDirectory()) {
        throw new Error(`${path}: cannot create the store: no folder ${folder}`);
      }
      return store;
    }
    store.restore(parseStore(path, text));
    return store;
  }

  /** Appends `updates` to the session's history, the last `historyLimit` of them kept in memory
   * and every one on disk (the log) before it resolves. */
  override async appendUpdates(sessionId: string, updates: readonly unknown[]): Promise<void> {
    if (updates.length === 0) return;
    // Numbered and kept in memory at once (appends made meanwhile come after), on disk in order.
    const first = this.history.sent(sessionId) + 1;
    this.history.append(sessionId, updates);
    await this.updates.append(sessionId, first, updates, () => this.history.all);
  }

  /** Closes the history's log (the store can still be used: a later append opens it again). */
  async close(): Promise<void> {
    await this.updates.close();
  }

  protected override commit(): Promise<void> {
    // A write not started yet takes this change too (it snapshots when it starts).
    this.queued ??= (this.writing ?? Promise.resolve()).then(
      () => this.startWrite(),
      () => this.startWrite(),
    );
    return this.queued;
  }

  protected override async durable(): Promise<void> {
    await (this.queued ?? this.writing);
  }

  private startWrite(): Promise<void> {
    this.queued = null;
    const snapshot = this.snapshot();
    const write = writeAtomically(this.path, JSON.stringify({ format: SESSION_FILE_FORMAT, ...snapshot } satisfies StoreFile) + "\n");
    this.writing = write;
    void write.then(
      () => this.finished(write),
      () => this.finished(write),
    );
    return write;
  }

  private finished(write: Promise<void>): void {
    if (this.writing === write) this.writing = null;
  }
}

function parseStore(path: string, text: string): StoreSnapshot {
  let file: Partial<StoreFile>;
  try {
    file = JSON.parse(text) as Partial<StoreFile>;
  } catch {
    throw new Error(`${path} is not a session store (not JSON)`);
  }
  if (file.format !== SESSION_FILE_FORMAT || typeof file.next !== "number" || !Array.isArray(file.sessions)) {
    throw new Error(`${path} is not a session store of format ${SESSION_FILE_FORMAT}`);
  }
  return { next: file.next, sessions: file.sessions };
}
