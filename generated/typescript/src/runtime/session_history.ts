// Copied by acp-codegen from templates/typescript/runtime/session_history.ts: edit it there, then run:
//   make generate
/**
 * What a session needs to move between server processes: the updates the agent sent, in order.
 * Layer: typed layer (storage of a `SessionStore`, beside its records).
 *
 * `session/load` must replay the whole conversation ("The Agent MUST replay the entire
 * conversation to the Client in the form of `session/update` notifications", ACP v1
 * `session-setup.mdx`); a process that did not run the session has only what the store kept. An
 * agent with a `sessionStore` has each `session/update` it sends recorded here by the runtime
 * (session_replay.ts), written before the turn's answer.
 *
 * Bounded: each session keeps its last `historyLimit` updates (`DEFAULT_HISTORY_LIMIT`, 1,000,
 * unless the store was given one); older ones are deleted as new ones come, and a replay says how
 * many it no longer has (`Replay.dropped`). Updates are numbered per session (from 1), so the
 * number dropped is the first kept one's minus one. A `MemorySessionStore` keeps them in memory;
 * a `FileSessionStore` in memory and in a log beside its file (session_file_updates.ts); a
 * `PostgresSessionStore` in `acp_session_updates`, the table the Python and Go runtimes write.
 */

/** Updates kept per session unless the store says otherwise (`historyLimit`). */
export const DEFAULT_HISTORY_LIMIT = 1000;

/** A session's kept updates, oldest first; `dropped`: how many older ones the cap removed;
 * `limit`: the cap. */
export interface Replay {
  readonly updates: readonly unknown[];
  readonly dropped: number;
  readonly limit: number;
}

/** The updates of a memory store: gone with the process. */
export class MemoryHistory {
  private readonly sessions = new Map<string, { sent: number; kept: unknown[] }>();

  constructor(readonly limit: number = DEFAULT_HISTORY_LIMIT) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`historyLimit must keep at least one update, not ${limit}`);
  }

  /** Every session's history: `sent` updates so far, the last ones `kept` (a file store writes
   * them and reads them back). */
  get all(): Map<string, { sent: number; kept: unknown[] }> {
    return this.sessions;
  }

  /** Updates sent so far in `sessionId` (the next one is number `sent + 1`). */
  sent(sessionId: string): number {
    return this.sessions.get(sessionId)?.sent ?? 0;
  }

  append(sessionId: string, updates: readonly unknown[]): void {
    let history = this.sessions.get(sessionId);
    if (history === undefined) {
      history = { sent: 0, kept: [] };
      this.sessions.set(sessionId, history);
    }
    history.sent += updates.length;
    history.kept.push(...updates);
    if (history.kept.length > this.limit) history.kept.splice(0, history.kept.length - this.limit);
  }

  read(sessionId: string): Replay {
    const history = this.sessions.get(sessionId);
    if (history === undefined) return { updates: [], dropped: 0, limit: this.limit };
    return { updates: [...history.kept], dropped: history.sent - history.kept.length, limit: this.limit };
  }
}
