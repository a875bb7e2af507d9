/**
 * A session store behind `session/list` and `session_info_update`, as the Python runtime's
 * session_store.py. Layer: typed layer (an agent sets it as its `sessionStore`; the generated
 * agent module answers `session/list` from it and advertises that in `initialize`).
 *
 * Agent side: `newSession()` records a session under a fresh id (`create()` under the caller's);
 * `change()` applies a change and resolves with the `session_info_update` to send (only the
 * changed fields, `null` for cleared ones, `updatedAt` stamped in RFC 3339 UTC unless given);
 * `listSessions()` answers `session/list` with cursor pagination ("Cursor-based pagination";
 * `nextCursor` "present if there are more results", an opaque token). Client side:
 * `applyUpdate()` keeps the mirror of a session from the updates received.
 *
 * The `_meta` policy is one per store (session_info.ts): `"merge"`, `"replace"` or `"patch"`;
 * left unset, a store takes the policy of the edition whose agent it serves (v1 `"merge"`, v2
 * `"patch"`), and `"merge"` until then. Guards: a title longer than `titleLimit` (500, the RFD's
 * "recommend 500 chars max") is truncated; a `_meta` over `metaLimit` bytes (64 KiB) or nested
 * over 64 deep is rejected (`onProblem`) and the stored state stays unchanged.
 *
 * `MemorySessionStore` keeps sessions in memory; `FileSessionStore` (session_file.ts) also in a
 * file, each change acknowledged only once it is on disk; `PostgresSessionStore`
 * (session_postgres.ts, the `acp-protocol-sdk/postgres` entry point) in PostgreSQL, with these
 * rules (its protected methods).
 */

import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { INVALID_PARAMS, RequestError } from "./errors.js";
import { applySessionInfoUpdate, type JsonObject, type MetaPolicy } from "./session_info.js";
import { MemoryHistory, type Replay } from "./session_history.js";

/** One session as the store knows it; null: not set, or cleared. */
export interface SessionRecord {
  readonly sessionId: string;
  readonly cwd: string;
  readonly title: string | null;
  readonly updatedAt: string | null;
  readonly meta: JsonObject | null;
}

/** A change to a session: an absent field is left as it is, `null` clears it. */
export interface SessionChange {
  readonly title?: string | null;
  readonly meta?: JsonObject | null;
  readonly updatedAt?: string | null;
}

/** A `SessionInfo` of `session/list`, in wire form. */
export interface ListedSession {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt?: string;
  _meta?: JsonObject;
}

/** A `ListSessionsResponse`: one page, and `nextCursor` when more follow. */
export interface SessionPage {
  sessions: ListedSession[];
  nextCursor?: string;
}

/** What an agent's `sessionStore` is. Every method resolves once its change is kept for good (a
 * file-backed store: on disk). */
export interface SessionStore {
  /** Takes an edition's `_meta` policy, unless one was chosen when the store was made. */
  adoptPolicy(policy: MetaPolicy): void;
  get(sessionId: string): Promise<SessionRecord | undefined>;
  /** Records a session under a new id (`sess_` + a random UUID) this store never handed out. */
  newSession(cwd: string, options?: { title?: string | null }): Promise<SessionRecord>;
  /** Records a new session (or resolves with the one recorded under that id). */
  create(sessionId: string, cwd: string, options?: { title?: string | null }): Promise<SessionRecord>;
  /** Applies `change`; the `session_info_update` to send, or null when nothing changed or the
   * change was rejected. Rejects for an unknown session. */
  change(sessionId: string, change: SessionChange): Promise<JsonObject | null>;
  /** One page of `session/list` (`cwd`: only the sessions there); -32602 for a cursor this store
   * did not make. */
  listSessions(cwd?: string | null, cursor?: string | null): Promise<SessionPage>;
  /** The mirror of `sessionId` after a received `session_info_update` (its wire form); undefined
   * when the update was rejected. */
  applyUpdate(sessionId: string, update: object): Promise<SessionRecord | undefined>;
  /** Appends `updates` (each a sent `session/update`'s `update`) to the session's history, in
   * order, keeping its last `historyLimit` (session_history.ts); resolves once they are kept. A
   * store without it is not replayed from. */
  appendUpdates?(sessionId: string, updates: readonly unknown[]): Promise<void>;
  /** The session's kept history, what `session/load` replays. */
  readUpdates?(sessionId: string): Promise<Replay>;
}

export interface SessionStoreOptions {
  policy?: MetaPolicy;
  titleLimit?: number;
  metaLimit?: number;
  pageSize?: number;
  /** Now, as RFC 3339 UTC (`2026-11-21T12:00:00Z`). */
  clock?: () => string;
  /** Told about a rejected `_meta`. */
  onProblem?: (message: string) => void;
  /** The updates kept per session for `session/load` (1,000): the oldest go first. */
  historyLimit?: number;
}

const META_DEPTH = 64;

/** Now, as RFC 3339 UTC with a `Z` and whole seconds (`2026-11-21T12:00:00Z`). */
export function utcNow(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

/** What a store holds, as a file-backed store writes it. */
export interface StoreSnapshot {
  readonly next: number;
  readonly sessions: ReadonlyArray<readonly [number, SessionRecord]>;
}

/** Sessions in memory, in the order they were recorded. */
export class MemorySessionStore implements SessionStore {
  /** By id: the position (order of recording, never reused) and the record. */
  private records = new Map<string, { position: number; record: SessionRecord }>();
  private next = 1;
  protected policy: MetaPolicy;
  private readonly policyChosen: boolean;
  private readonly titleLimit: number;
  private readonly metaLimit: number;
  protected readonly pageSize: number;
  protected readonly clock: () => string;
  private readonly onProblem: (message: string) => void;
  protected readonly history: MemoryHistory;

  constructor(options: SessionStoreOptions = {}) {
    this.history = new MemoryHistory(options.historyLimit);
    this.policy = options.policy ?? "merge";
    this.policyChosen = options.policy !== undefined;
    this.titleLimit = options.titleLimit ?? 500;
    this.metaLimit = options.metaLimit ?? 64 * 1024;
    this.pageSize = options.pageSize ?? 50;
    this.clock = options.clock ?? utcNow;
    this.onProblem = options.onProblem ?? (() => undefined);
  }

  adoptPolicy(policy: MetaPolicy): void {
    if (!this.policyChosen) this.policy = policy;
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    return this.records.get(sessionId)?.record;
  }

  async newSession(cwd: string, options: { title?: string | null } = {}): Promise<SessionRecord> {
    let sessionId = `sess_${randomUUID().replaceAll("-", "")}`;
    while (this.records.has(sessionId)) sessionId = `sess_${randomUUID().replaceAll("-", "")}`;
    return this.create(sessionId, cwd, options);
  }

  async create(sessionId: string, cwd: string, options: { title?: string | null } = {}): Promise<SessionRecord> {
    const found = this.records.get(sessionId);
    if (found !== undefined) {
      await this.durable(); // recorded by a call whose write may still be under way
      return found.record;
    }
    const record: SessionRecord = { sessionId, cwd, title: this.clip(options.title ?? null), updatedAt: this.clock(), meta: null };
    this.records.set(sessionId, { position: this.next++, record });
    await this.commit();
    return record;
  }

  async change(sessionId: string, change: SessionChange): Promise<JsonObject | null> {
    const entry = this.records.get(sessionId);
    if (entry === undefined) throw new Error(`unknown session ${JSON.stringify(sessionId)}: create() it first`);
    const update = this.changedFields(entry.record, change);
    const after = update === null ? null : this.applied(entry.record, update);
    if (update === null || after === null) return null;
    entry.record = after;
    await this.commit();
    return { sessionUpdate: "session_info_update", ...update };
  }

  async listSessions(cwd?: string | null, cursor?: string | null): Promise<SessionPage> {
    const after = decodeCursor(cursor);
    const page: Array<{ position: number; record: SessionRecord }> = [];
    for (const entry of this.records.values()) {
      // A Map keeps insertion order, which is position order.
      if (entry.position > after && (cwd == null || entry.record.cwd === cwd)) page.push(entry);
      if (page.length > this.pageSize) break;
    }
    const response: SessionPage = { sessions: page.slice(0, this.pageSize).map(({ record }) => listed(record)) };
    const last = page[this.pageSize - 1];
    if (page.length > this.pageSize && last !== undefined) response.nextCursor = encodeCursor(last.position);
    return response;
  }

  async applyUpdate(sessionId: string, update: object): Promise<SessionRecord | undefined> {
    const wire = update as { readonly [key: string]: unknown };
    const meta = wire._meta;
    if (typeof meta === "object" && meta !== null && !Array.isArray(meta) && !this.metaFits(sessionId, meta as JsonObject)) return undefined;
    const clipped = typeof wire.title === "string" ? { ...wire, title: this.clip(wire.title) } : wire;
    const entry = this.records.get(sessionId);
    const stored = entry?.record ?? { sessionId, cwd: "", title: null, updatedAt: null, meta: null };
    const after = this.applied(stored, clipped);
    if (after === null) return undefined;
    if (entry === undefined) this.records.set(sessionId, { position: this.next++, record: after });
    else entry.record = after;
    await this.commit();
    return after;
  }

  /** Called after each change is made in memory; resolves once it is kept for good. */
  protected async commit(): Promise<void> {}

  /** Resolves once every change made so far is kept for good. */
  protected async durable(): Promise<void> {}

  /** Everything held, for a file-backed store to write. */
  async appendUpdates(sessionId: string, updates: readonly unknown[]): Promise<void> {
    this.history.append(sessionId, updates);
  }

  async readUpdates(sessionId: string): Promise<Replay> {
    return this.history.read(sessionId);
  }

  protected snapshot(): StoreSnapshot {
    return { next: this.next, sessions: [...this.records.values()].map(({ position, record }) => [position, record] as const) };
  }

  /** Replaces everything held by `snapshot` (a file-backed store reading its file). */
  protected restore(snapshot: StoreSnapshot): void {
    this.records = new Map(snapshot.sessions.map(([position, record]) => [record.sessionId, { position, record }]));
    this.next = snapshot.next;
  }

  protected changedFields(stored: SessionRecord, change: SessionChange): JsonObject | null {
    const update: JsonObject = {};
    if (change.title !== undefined && this.clip(change.title) !== stored.title) update.title = this.clip(change.title);
    if (change.meta !== undefined) {
      if (change.meta !== null && !this.metaFits(stored.sessionId, change.meta)) return null;
      const info = { title: null, updatedAt: null, meta: stored.meta };
      if (!isDeepStrictEqual(applySessionInfoUpdate(info, { _meta: change.meta }, this.policy).meta, stored.meta)) update._meta = change.meta;
    }
    if (change.updatedAt !== undefined) {
      if (change.updatedAt !== stored.updatedAt) update.updatedAt = change.updatedAt;
    } else if (Object.keys(update).length > 0) {
      update.updatedAt = this.clock();
    }
    return Object.keys(update).length > 0 ? update : null;
  }

  /** `stored` with `update` (wire form) applied; null when the result breaks a guard. */
  protected applied(stored: SessionRecord, update: object): SessionRecord | null {
    const after = applySessionInfoUpdate(stored, update, this.policy);
    if (after.meta !== null && !this.metaFits(stored.sessionId, after.meta)) return null;
    return { ...stored, title: after.title, updatedAt: after.updatedAt, meta: after.meta };
  }

  /** "Agents should validate title length (recommend 500 chars max)" (session-info RFD). */
  protected clip(title: string | null): string | null {
    return title === null ? null : title.slice(0, this.titleLimit);
  }

  protected metaFits(sessionId: string, meta: JsonObject): boolean {
    const depth = depthOf(meta);
    if (depth > META_DEPTH) {
      this.onProblem(`session ${sessionId}: _meta nested ${depth} deep rejected (limit ${META_DEPTH}); state unchanged`);
      return false;
    }
    const size = Buffer.byteLength(JSON.stringify(meta));
    if (size > this.metaLimit) {
      this.onProblem(`session ${sessionId}: _meta of ${size} bytes rejected (limit ${this.metaLimit}); state unchanged`);
      return false;
    }
    return true;
  }
}

export function listed(record: SessionRecord): ListedSession {
  const wire: ListedSession = { sessionId: record.sessionId, cwd: record.cwd };
  if (record.title !== null) wire.title = record.title;
  if (record.updatedAt !== null) wire.updatedAt = record.updatedAt;
  if (record.meta !== null) wire._meta = record.meta;
  return wire;
}

export function encodeCursor(position: number): string {
  return Buffer.from(JSON.stringify({ after: position })).toString("base64url");
}

/** The position a cursor continues after; -32602 for a cursor this store did not make. */
export function decodeCursor(cursor: string | null | undefined): number {
  if (cursor == null) return 0;
  let after: unknown;
  try {
    after = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { after?: unknown }).after;
  } catch {
    after = undefined;
  }
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) {
    throw new RequestError(INVALID_PARAMS, "Invalid cursor", { cursor });
  }
  return after;
}

/** How deeply objects and arrays nest in `value`, without recursion (stops past the limit). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== "object" || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (depth > META_DEPTH) return depth;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
