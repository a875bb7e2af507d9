/**
 * The history of a `FileSessionStore` on disk: the updates each session sent, what `session/load`
 * replays, kept beside the store's file (`<store>.updates`). Layer: typed layer (storage of a
 * `FileSessionStore`, session_file.ts).
 *
 * "Nothing acknowledged is ever lost": a turn's updates are in the store before its answer, so a
 * store kept in a file keeps them on disk, and a process that opens the file again (a restart)
 * replays what the one before it sent. The store's file is rewritten whole on each change; a
 * history is far larger and grows by every turn, so it is a log instead: JSON Lines, a format line
 * first (`SESSION_UPDATES_FORMAT`), then one `[sessionId, seq, update]` per update (`seq` from 1
 * per session, as the SQLite and PostgreSQL tables number them), appended and flushed to disk
 * (`fsync`) before the append resolves. A line the process was writing when it died (no newline
 * yet) was never acknowledged: it is cut off when the log is opened. Once the log holds more than
 * twice what the sessions keep, it is written again with only what they keep (a temporary file,
 * `fsync`, rename), so it stays bounded. The Go runtime reads and writes the same log.
 */

import { open, readFile, truncate, type FileHandle } from "node:fs/promises";
import { writeAtomically } from "./atomic_write.js";

/** The format line a history log starts with; any other file is refused. */
export const SESSION_UPDATES_FORMAT = "acp-codegen-session-updates/jsonl-1";

/** Lines a log may hold beyond twice what is kept before it is written again. */
const SLACK = 64;

/** One session's history as the log gives it: every update sent (`sent`), the last ones kept. */
export interface LoggedHistory {
  sent: number;
  kept: unknown[];
}

/** The log of a store file `path`: `<path>.updates`. */
export function updatesPath(path: string): string {
  return `${path}.updates`;
}

/** What a log holds: every session's history (the last `limit` updates of each), and its lines. */
export interface LogContent {
  readonly histories: Map<string, LoggedHistory>;
  readonly lines: number;
}

/** The log at `path` (empty when there is no such file); a last line with no newline is cut off
 * the file. Rejects with one line naming the file and line for a file that is not such a log. */
export async function readUpdateLog(path: string, limit: number): Promise<LogContent> {
  const histories = new Map<string, LoggedHistory>();
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { histories, lines: 0 };
    throw error;
  }
  const end = text.lastIndexOf("\n") + 1;
  if (end < text.length) await truncate(path, Buffer.byteLength(text.slice(0, end)));
  const lines = text.slice(0, end).split("\n");
  lines.pop();
  if (lines.length === 0) return { histories, lines: 0 };
  if (!isFormatLine(lines[0])) throw new Error(`${path} is not a session history of format ${SESSION_UPDATES_FORMAT}`);
  for (let index = 1; index < lines.length; index++) {
    const entry = parseEntry(lines[index]);
    if (entry === null) throw new Error(`${path}:${index + 1}: not a [sessionId, seq, update] line`);
    const [sessionId, seq, update] = entry;
    let history = histories.get(sessionId);
    // A session's first line may come after a rewrite that dropped its older updates.
    if (history === undefined) histories.set(sessionId, (history = { sent: seq - 1, kept: [] }));
    if (seq !== history.sent + 1) throw new Error(`${path}:${index + 1}: update ${seq} of session ${sessionId} follows update ${history.sent}`);
    history.sent = seq;
    history.kept.push(update);
    if (history.kept.length > 2 * limit) history.kept.splice(0, history.kept.length - limit);
  }
  for (const history of histories.values()) {
    if (history.kept.length > limit) history.kept.splice(0, history.kept.length - limit);
  }
  return { histories, lines: lines.length };
}

function isFormatLine(line: string): boolean {
  try {
    return (JSON.parse(line) as { format?: unknown }).format === SESSION_UPDATES_FORMAT;
  } catch {
    return false;
  }
}

function parseEntry(line: string): [string, number, unknown] | null {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return null;
  }
  if (!Array.isArray(entry) || entry.length !== 3) return null;
  const [sessionId, seq, update] = entry as [unknown, unknown, unknown];
  if (typeof sessionId !== "string" || !Number.isSafeInteger(seq) || (seq as number) < 1) return null;
  return [sessionId, seq as number, update];
}

/** Appends to the log at `path`, one append at a time, each on disk before it resolves. */
export class UpdateLog {
  private file: FileHandle | null = null;
  private tail: Promise<void> = Promise.resolve();
  /** Lines in the file, its format line included. */
  private lines: number;
  /** The write that failed, if one did: every later append is refused. */
  private failed: Error | null = null;
  /** By session: the number of its last update on disk. */
  private readonly written = new Map<string, number>();

  /** `content`: what the file holds (`readUpdateLog`). */
  constructor(
    readonly path: string,
    content: LogContent,
  ) {
    this.lines = content.lines;
    for (const [sessionId, history] of content.histories) this.written.set(sessionId, history.sent);
  }

  /** Writes the updates `first`, `first + 1`, … of `sessionId`; resolves once they are on disk.
   * `kept` gives what every session keeps, for when the log is written again. */
  append(sessionId: string, first: number, updates: readonly unknown[], kept: () => Map<string, LoggedHistory>): Promise<void> {
    const text = updates.map((update, index) => JSON.stringify([sessionId, first + index, update]) + "\n").join("");
    const done = this.tail.then(() => {
      // A write that failed leaves a gap in the numbers: every later append is refused with its
      // error (as Go's store refuses every change after a failed write); open the store again
      // once the cause is fixed.
      if (this.failed !== null) throw this.failed;
      return this.write(text, sessionId, first, updates.length, kept).catch((error: unknown) => {
        this.failed = error instanceof Error ? error : new Error(String(error));
        throw this.failed;
      });
    });
    this.tail = done.catch(() => undefined);
    return done;
  }

  private async write(text: string, sessionId: string, first: number, count: number, kept: () => Map<string, LoggedHistory>): Promise<void> {
    if (this.file === null) {
      this.file = await open(this.path, "a", 0o600);
      if ((await this.file.stat()).size === 0) {
        await this.file.appendFile(JSON.stringify({ format: SESSION_UPDATES_FORMAT }) + "\n", "utf8");
        this.lines = 1;
      }
    }
    await this.file.appendFile(text, "utf8");
    await this.file.sync();
    this.lines += count;
    this.written.set(sessionId, first + count - 1);
    const histories = kept();
    let held = 1;
    for (const history of histories.values()) held += history.kept.length;
    if (this.lines > 2 * held + SLACK) await this.compact(histories);
  }

  /** Writes the log again with only what the sessions keep (their numbers kept). */
  private async compact(histories: Map<string, LoggedHistory>): Promise<void> {
    const parts = [JSON.stringify({ format: SESSION_UPDATES_FORMAT }) + "\n"];
    let lines = 1;
    for (const [sessionId, history] of histories) {
      // Only what is on disk already: updates kept in memory whose append is still queued are
      // written by that append.
      const first = history.sent - history.kept.length + 1;
      const last = this.written.get(sessionId) ?? 0;
      history.kept.forEach((update, index) => {
        if (first + index > last) return;
        parts.push(JSON.stringify([sessionId, first + index, update]) + "\n");
        lines++;
      });
    }
    await writeAtomically(this.path, parts.join(""));
    await this.file?.close();
    this.file = await open(this.path, "a", 0o600);
    this.lines = lines;
  }

  /** Closes the log's file (a later append opens it again). */
  async close(): Promise<void> {
    await this.tail;
    await this.file?.close();
    this.file = null;
  }
}
