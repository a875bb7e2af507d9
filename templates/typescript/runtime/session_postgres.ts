/**
 * A session store kept in PostgreSQL, shared by every server process of an agent:
 * `PostgresSessionStore`, on the `pg` package (an optional peer dependency; this module is the
 * package's `acp-protocol-sdk/postgres` entry point, and the main entry point never loads it).
 * Layer: typed layer (session_store.ts: the same rules, guards and `_meta` policy).
 *
 *     const store = await PostgresSessionStore.open("postgresql://agent@db/agents");
 *     ...
 *     await store.close();
 *
 * A change is read, computed and written in one transaction that holds the session's row
 * (`SELECT … FOR UPDATE`): several processes changing the same session wait for each other and
 * none loses another's acknowledged change; a call resolves only after its `COMMIT`, so a process
 * killed at any moment loses nothing acknowledged. `open` creates the tables (in `schema`,
 * `public` unless given) or migrates an older version under an advisory lock; a version newer
 * than this runtime knows is refused in one line, untouched. The tables are the Python runtime's
 * (session_postgres.py) and the Go one's: the three share one database.
 */

import { randomUUID } from "node:crypto";
import type { Pool, PoolClient, PoolConfig } from "pg";
import type { Replay } from "./session_history.js";
import type { JsonObject } from "./session_info.js";
import {
  MemorySessionStore,
  decodeCursor,
  encodeCursor,
  listed,
  type SessionChange,
  type SessionPage,
  type SessionRecord,
  type SessionStoreOptions,
} from "./session_store.js";

/** The `format` row of `acp_session_store`: the tables are this store's. */
export const POSTGRES_STORE_FORMAT = "acp-codegen-session-store";
/** The newest schema this runtime knows; `MIGRATIONS[n - 1]` brings version n - 1 to n. */
export const POSTGRES_SCHEMA_VERSION = 2;
const MIGRATIONS: ReadonlyArray<readonly string[]> = [
  [
    "CREATE TABLE {schema}.acp_sessions (position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, session_id TEXT NOT NULL UNIQUE, cwd TEXT NOT NULL, title TEXT, updated_at TEXT, meta TEXT)",
    "CREATE INDEX acp_sessions_cwd ON {schema}.acp_sessions (cwd, position)",
  ],
  // 2: the updates `session/load` replays (session_history.ts), as every runtime writes them.
  ["CREATE TABLE {schema}.acp_session_updates (session_id TEXT NOT NULL, seq BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, seq))"],
];
/** "ACPS": the advisory lock held while the schema is created or migrated. */
const LOCK_KEY = 0x41435053;
/** A batch of updates (`$bodies`) numbered after session `$id`'s last, the ones past the cap
 * (`$keep`) deleted, those of the batch itself not written (the numbers, and the count a replay
 * reports dropped, are the same): the statement after the session's advisory lock, as the Python
 * and Go stores send it. */
const APPEND =
  "WITH last AS (SELECT coalesce(max(seq), 0) AS seq FROM $updates WHERE session_id = $id)," +
  " trimmed AS (DELETE FROM $updates WHERE session_id = $id AND seq <= (SELECT seq FROM last) + cardinality($bodies) - $keep)" +
  " INSERT INTO $updates (session_id, seq, body) SELECT $id, last.seq + b.n, b.body" +
  " FROM last, unnest($bodies) WITH ORDINALITY AS b(body, n) WHERE b.n > cardinality($bodies) - $keep";
const PG_MISSING = "the PostgreSQL session store needs the pg package: npm install pg";

/** The database is unusable for this store: unreachable, or a schema this runtime cannot use. One line. */
export class SessionStoreError extends Error {
  override name = "SessionStoreError";
}

export interface PostgresStoreOptions extends SessionStoreOptions {
  /** The PostgreSQL schema of the store's tables (created when missing); `public` by default. */
  schema?: string;
  /** The most connections the pool opens (10). */
  poolSize?: number;
  /** How long to wait for a connection, in milliseconds (10,000). */
  connectTimeoutMs?: number;
}

/** A session store in a PostgreSQL database, through a `pg` pool. */
export class PostgresSessionStore extends MemorySessionStore {
  private constructor(
    private readonly pool: Pool,
    private readonly table: string,
    private readonly updates: string,
    private readonly where: string,
    options: SessionStoreOptions,
  ) {
    super(options);
  }

  /** The store in the database at `connection` (a connection string or `pg`'s pool settings),
   * its tables created or migrated. Rejects with a one-line `SessionStoreError` for a server
   * that cannot be reached or a schema this runtime cannot use. */
  static async open(connection: string | PoolConfig, options: PostgresStoreOptions = {}): Promise<PostgresSessionStore> {
    let pg: { Pool: typeof Pool };
    try {
      pg = (await import("pg")).default;
    } catch {
      throw new SessionStoreError(PG_MISSING);
    }
    const config: PoolConfig = typeof connection === "string" ? { connectionString: connection } : connection;
    const where = describe(config);
    const pool = new pg.Pool({ max: options.poolSize ?? 10, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000, ...config });
    pool.on("error", () => undefined); // an idle connection lost: the next call opens another
    const schema = quote(options.schema ?? "public");
    try {
      await inTransaction(pool, where, (client) => migrate(client, schema, options.schema ?? "public", where));
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresSessionStore(pool, `${schema}.acp_sessions`, `${schema}.acp_session_updates`, where, options);
  }

  /** Closes the pool (waits for the calls under way). */
  async close(): Promise<void> {
    await this.pool.end();
  }

  override async get(sessionId: string): Promise<SessionRecord | undefined> {
    return inTransaction(this.pool, this.where, (client) => this.select(client, sessionId, false));
  }

  override async newSession(cwd: string, options: { title?: string | null } = {}): Promise<SessionRecord> {
    for (;;) {
      const record: SessionRecord = {
        sessionId: `sess_${randomUUID().replaceAll("-", "")}`,
        cwd,
        title: this.clip(options.title ?? null),
        updatedAt: this.clock(),
        meta: null,
      };
      if (await inTransaction(this.pool, this.where, (client) => this.insert(client, record))) return record;
    }
  }

  override async create(sessionId: string, cwd: string, options: { title?: string | null } = {}): Promise<SessionRecord> {
    const record: SessionRecord = { sessionId, cwd, title: this.clip(options.title ?? null), updatedAt: this.clock(), meta: null };
    return (await this.update(sessionId, (found) => found ?? record)) as SessionRecord;
  }

  override async change(sessionId: string, change: SessionChange): Promise<JsonObject | null> {
    let sent: JsonObject | null = null;
    await this.update(sessionId, (stored) => {
      sent = null; // applied again to what another process wrote: only the last counts
      if (stored === undefined) throw new Error(`unknown session ${JSON.stringify(sessionId)}: create() it first`);
      const update = this.changedFields(stored, change);
      const after = update === null ? null : this.applied(stored, update);
      if (update === null || after === null) return stored;
      sent = update;
      return after;
    });
    return sent === null ? null : { sessionUpdate: "session_info_update", ...(sent as JsonObject) };
  }

  override async listSessions(cwd?: string | null, cursor?: string | null): Promise<SessionPage> {
    const after = decodeCursor(cursor);
    const rows = await inTransaction(this.pool, this.where, async (client) => {
      const result = await client.query(
        `SELECT position, session_id, cwd, title, updated_at, meta FROM ${this.table} WHERE position > $1 AND ($2::text IS NULL OR cwd = $2) ORDER BY position LIMIT $3`,
        [after, cwd ?? null, this.pageSize + 1],
      );
      return result.rows as Row[];
    });
    const response: SessionPage = { sessions: rows.slice(0, this.pageSize).map((row) => listed(record(row))) };
    const last = rows[this.pageSize - 1];
    if (rows.length > this.pageSize && last !== undefined) response.nextCursor = encodeCursor(Number(last.position));
    return response;
  }

  override async applyUpdate(sessionId: string, update: object): Promise<SessionRecord | undefined> {
    const wire = update as { readonly [key: string]: unknown };
    const meta = wire._meta;
    if (typeof meta === "object" && meta !== null && !Array.isArray(meta) && !this.metaFits(sessionId, meta as JsonObject)) return undefined;
    const clipped = typeof wire.title === "string" ? { ...wire, title: this.clip(wire.title) } : wire;
    let applied: SessionRecord | undefined;
    await this.update(sessionId, (stored) => {
      applied = undefined;
      const after = this.applied(stored ?? { sessionId, cwd: "", title: null, updatedAt: null, meta: null }, clipped);
      if (after === null) return stored;
      applied = after;
      return after;
    });
    return applied;
  }

  /** Appends `updates` to the session's history and resolves once they are committed: one round
   * trip, one query of two statements (an implicit transaction; `pg` cannot pipeline, so its
   * values are literals, escaped by `pg`): the session's advisory lock first, so one appender per
   * session at a time (its own statement: the next one's snapshot sees what the last holder
   * committed), then the append-and-trim statement every runtime's store sends. */
  override async appendUpdates(sessionId: string, updates: readonly unknown[]): Promise<void> {
    if (updates.length === 0) return;
    await inOneQuery(this.pool, this.where, (client) => {
      const values: Record<string, string> = {
        updates: this.updates,
        id: client.escapeLiteral(sessionId),
        bodies: `ARRAY[${updates.map((update) => client.escapeLiteral(JSON.stringify(update))).join(",")}]::text[]`,
        keep: String(this.history.limit),
      };
      // One pass: a value is never read again for a name (a session id holding "$keep" stays text).
      const append = APPEND.replace(/\$(updates|id|bodies|keep)\b/g, (_, name: string) => values[name] ?? "");
      return `SELECT pg_advisory_xact_lock(${LOCK_KEY}, hashtext(${values["id"]})); ${append}`;
    });
  }

  /** The session's kept history, oldest first. */
  override async readUpdates(sessionId: string): Promise<Replay> {
    const rows = await inTransaction(this.pool, this.where, async (client) => {
      const result = await client.query(`SELECT seq, body FROM ${this.updates} WHERE session_id = $1 ORDER BY seq`, [sessionId]);
      return result.rows as Array<{ seq: string | number; body: string }>;
    });
    const first = rows[0];
    return {
      updates: rows.map((row) => JSON.parse(row.body) as unknown),
      dropped: first === undefined ? 0 : Number(first.seq) - 1,
      limit: this.history.limit,
    };
  }

  /** Reads `sessionId` with its row held, applies `change`, writes its result (the same object:
   * nothing); again when another process recorded the session between the read and the insert. */
  private async update(
    sessionId: string,
    change: (stored: SessionRecord | undefined) => SessionRecord | undefined,
  ): Promise<SessionRecord | undefined> {
    for (;;) {
      const outcome = await inTransaction(this.pool, this.where, async (client) => {
        const stored = await this.select(client, sessionId, true);
        const after = change(stored);
        if (after === undefined || after === stored) return { stored };
        if (stored === undefined) return (await this.insert(client, after)) ? { stored: after } : null;
        await client.query(`UPDATE ${this.table} SET cwd = $1, title = $2, updated_at = $3, meta = $4 WHERE session_id = $5`, [
          ...values(after).slice(1),
          sessionId,
        ]);
        return { stored: after };
      });
      if (outcome !== null) return outcome.stored;
    }
  }

  private async select(client: PoolClient, sessionId: string, lock: boolean): Promise<SessionRecord | undefined> {
    const result = await client.query(
      `SELECT 0 AS position, session_id, cwd, title, updated_at, meta FROM ${this.table} WHERE session_id = $1${lock ? " FOR UPDATE" : ""}`,
      [sessionId],
    );
    const row = result.rows[0] as Row | undefined;
    return row === undefined ? undefined : record(row);
  }

  private async insert(client: PoolClient, stored: SessionRecord): Promise<boolean> {
    const result = await client.query(
      `INSERT INTO ${this.table} (session_id, cwd, title, updated_at, meta) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_id) DO NOTHING`,
      values(stored),
    );
    return result.rowCount === 1;
  }
}

interface Row {
  position: string | number;
  session_id: string;
  cwd: string;
  title: string | null;
  updated_at: string | null;
  meta: string | null;
}

function record(row: Row): SessionRecord {
  return {
    sessionId: row.session_id,
    cwd: row.cwd,
    title: row.title,
    updatedAt: row.updated_at,
    meta: row.meta === null ? null : (JSON.parse(row.meta) as JsonObject),
  };
}

function values(stored: SessionRecord): Array<string | null> {
  return [stored.sessionId, stored.cwd, stored.title, stored.updatedAt, stored.meta === null ? null : JSON.stringify(stored.meta)];
}

/** `work` in one transaction on a connection of the pool: COMMIT, or ROLLBACK on any error. A
 * database or connection error becomes a one-line `SessionStoreError`; others pass as they are. */
async function inTransaction<T>(pool: Pool, where: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new SessionStoreError(`${where}: cannot connect: ${firstLine(error)}`);
  }
  let broken = false;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch {
      broken = true;
    }
    if (error instanceof SessionStoreError || !isDatabaseError(error)) throw error;
    throw new SessionStoreError(`${where}: ${firstLine(error)}`);
  } finally {
    client.release(broken);
  }
}

/** The text `write` makes, sent as one query (pg's simple protocol: its statements one implicit
 * transaction, answered after its COMMIT); errors as `inTransaction`'s. */
async function inOneQuery(pool: Pool, where: string, write: (client: PoolClient) => string): Promise<void> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new SessionStoreError(`${where}: cannot connect: ${firstLine(error)}`);
  }
  let broken = false;
  try {
    await client.query(write(client));
  } catch (error) {
    broken = !(error instanceof Error && "severity" in error); // the server's error: rolled back, the connection fine
    if (!isDatabaseError(error)) throw error;
    throw new SessionStoreError(`${where}: ${firstLine(error)}`);
  } finally {
    client.release(broken);
  }
}

async function migrate(client: PoolClient, schema: string, name: string, where: string): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const result = await client.query(`SELECT key, value FROM ${schema}.acp_session_store`);
  const rows = new Map((result.rows as Array<{ key: string; value: string }>).map(({ key, value }) => [key, value]));
  if (rows.size > 0 && rows.get("format") !== POSTGRES_STORE_FORMAT) {
    throw new SessionStoreError(`${where}: ${name}.acp_session_store belongs to another program (format ${JSON.stringify(rows.get("format") ?? null)})`);
  }
  const text = rows.get("version") ?? "0";
  if (!/^\d+$/.test(text)) throw new SessionStoreError(`${where}: session store schema version ${JSON.stringify(text)} is not a number`);
  const version = Number(text);
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new SessionStoreError(
      `${where}: session store schema version ${version} is newer than this runtime's (${POSTGRES_SCHEMA_VERSION}): upgrade acp-protocol-sdk, or use another schema`,
    );
  }
  for (let number = version + 1; number <= POSTGRES_SCHEMA_VERSION; number++) {
    for (const statement of MIGRATIONS[number - 1] ?? []) await client.query(statement.replaceAll("{schema}", schema));
  }
  if (version < POSTGRES_SCHEMA_VERSION) {
    await client.query(
      `INSERT INTO ${schema}.acp_session_store VALUES ('format', $1), ('version', $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [POSTGRES_STORE_FORMAT, String(POSTGRES_SCHEMA_VERSION)],
    );
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** The server and database of `config`, for messages (never its password). */
function describe(config: PoolConfig): string {
  let host = config.host ?? "localhost";
  let port = config.port === undefined ? "" : `:${config.port}`;
  let database = config.database === undefined ? "" : `/${config.database}`;
  if (config.connectionString !== undefined) {
    try {
      const url = new URL(config.connectionString);
      host = url.hostname || host;
      port = url.port ? `:${url.port}` : port;
      database = url.pathname.length > 1 ? url.pathname : database;
    } catch {
      return "PostgreSQL";
    }
  }
  return `PostgreSQL ${host}${port}${database}`;
}

function isDatabaseError(error: unknown): boolean {
  // pg's DatabaseError carries the server's SQLSTATE; a lost connection is a system error.
  return error instanceof Error && ("severity" in error || "code" in error || "errno" in error);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
  return text.split("\n")[0] ?? text;
}
