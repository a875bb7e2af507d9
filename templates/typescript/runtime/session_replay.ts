/**
 * `session/load` and `session/resume` answered from a session store, by any server process.
 * Layer: typed layer (what the router adds for a v1 agent with a `sessionStore`). The same rules
 * as the Python runtime's session_replay.py and the Go one's session_replay.go.
 *
 * An agent that sets `sessionStore` gets, with no code of its own:
 * - each `session/new` it answers recorded in the store (`create`, under the params' `cwd`);
 * - each `session/update` it sends recorded in the store's history (session_history.ts), in the
 *   order sent, and written before the turn's answer: "the Agent MUST respond to the original
 *   `session/prompt` request" only once this process has kept what the turn sent, so an answered
 *   turn is never missing from a later replay, whichever process replays it. A write that fails
 *   makes the answer -32603 (one log line), never a turn a replay would not show;
 * - `session/load` answered from the store: "The Agent MUST replay the entire conversation to the
 *   Client in the form of `session/update` notifications" (v1 `session-setup.mdx`), then the
 *   result. A history past the store's cap replays its last `historyLimit` updates and says how
 *   many it dropped in the result's `_meta` (`REPLAY_META`) and in one warning line;
 * - `session/resume` answered from the store: "resume the session context, allowing the
 *   conversation to continue without replaying the message history";
 * - both advertised in `initialize` (`loadSession`, `sessionCapabilities.resume`), unless the
 *   agent implements them itself (its own handlers are used, and its updates are still recorded).
 * A session the store does not know is -32002 (ACP's "Resource not found").
 */

import { INTERNAL_ERROR, RequestError } from "./errors.js";
import { RESOURCE_NOT_FOUND } from "./file_service.js";
import type { Replay } from "./session_history.js";
import type { SessionStore } from "./session_store.js";

/** The `_meta` key of a `session/load` result whose replay lost updates to the cap:
 * `{"replayed": n, "dropped": k, "limit": historyLimit}`. */
export const REPLAY_META = "acp-codegen/replay";
const UPDATE = "session/update";
const ANSWERED = new Set(["session/load", "session/resume"]);

/** A store that keeps a history: what a `SessionReplay` is made on. */
type HistoryStore = SessionStore & {
  appendUpdates(sessionId: string, updates: readonly unknown[]): Promise<void>;
  readUpdates(sessionId: string): Promise<Replay>;
};

/** One connection's share of a store: the updates it sent not yet written, and the methods
 * answered from the store. Null for a store that keeps no history. */
export function sessionReplay(store: SessionStore | undefined, log: (line: string) => void = (line) => console.warn(line)): SessionReplay | null {
  if (store === undefined || store.appendUpdates === undefined || store.readUpdates === undefined) return null;
  return new SessionReplay(store as HistoryStore, log);
}

export class SessionReplay {
  private pending: Array<[string, unknown]> = [];
  private draining: Promise<void> | null = null;
  private failed: string | null = null;

  constructor(
    readonly store: HistoryStore,
    private readonly log: (line: string) => void,
  ) {}

  /** Queues a sent `session/update` (its params); appended in the background, in order. */
  record(method: string, params: unknown): void {
    if (method !== UPDATE || typeof params !== "object" || params === null) return;
    const { sessionId, update } = params as { sessionId?: unknown; update?: unknown };
    if (typeof sessionId !== "string") return;
    this.pending.push([sessionId, update]);
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    await Promise.resolve(); // what the same tick sends goes in one append
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        for (const [sessionId, updates] of runs(batch)) {
          try {
            await this.store.appendUpdates(sessionId, updates);
          } catch (error) {
            this.failed ??= error instanceof Error ? error.message : String(error);
            this.log(`session updates not recorded: ${this.failed}`);
          }
        }
      }
    } finally {
      this.draining = null;
    }
  }

  /** Waits for what was recorded so far; a failed write is this answer's error (the client must
   * not be told a turn ended that a replay would not show). */
  async barrier(): Promise<void> {
    while (this.draining !== null) await this.draining;
    if (this.failed !== null) {
      const failed = this.failed;
      this.failed = null;
      throw new RequestError(INTERNAL_ERROR, "Internal error", { details: `session updates not recorded: ${failed}` });
    }
  }

  /** After the agent's answer, before it is sent: a turn's updates are written, a new session
   * recorded. */
  async answered(method: string, params: unknown, result: unknown): Promise<void> {
    if (method === "session/prompt") {
      await this.barrier();
    } else if (method === "session/new") {
      const sessionId = (result as { sessionId?: unknown } | null)?.sessionId;
      const cwd = (params as { cwd?: unknown } | null)?.cwd;
      if (typeof sessionId === "string" && typeof cwd === "string") await this.store.create(sessionId, cwd);
    }
  }

  /** Whether the store answers `method` (`session/load`, `session/resume`). */
  answers(method: string): boolean {
    return ANSWERED.has(method);
  }

  /** Answers `session/load` (the replay sent first with `notify`, not recorded again) or
   * `session/resume`. */
  async answer(method: string, params: unknown, notify: (method: string, params: unknown) => Promise<void>): Promise<unknown> {
    const sessionId = (params as { sessionId: string }).sessionId;
    if ((await this.store.get(sessionId)) === undefined) throw new RequestError(RESOURCE_NOT_FOUND, "Resource not found", { sessionId });
    if (method !== "session/load") return {};
    await this.barrier(); // this connection's own updates first
    const replay = await this.store.readUpdates(sessionId);
    for (const update of replay.updates) await notify(UPDATE, { sessionId, update });
    if (replay.dropped === 0) return {};
    this.log(
      `session ${sessionId}: replayed its last ${replay.updates.length} updates; ${replay.dropped} older ones are past the store's historyLimit (${replay.limit})`,
    );
    return { _meta: { [REPLAY_META]: { replayed: replay.updates.length, dropped: replay.dropped, limit: replay.limit } } };
  }
}

/** The batch as consecutive runs of one session each, order kept. */
function runs(batch: ReadonlyArray<[string, unknown]>): Array<[string, unknown[]]> {
  const out: Array<[string, unknown[]]> = [];
  for (const [sessionId, update] of batch) {
    const last = out[out.length - 1];
    if (last !== undefined && last[0] === sessionId) last[1].push(update);
    else out.push([sessionId, [update]]);
  }
  return out;
}
