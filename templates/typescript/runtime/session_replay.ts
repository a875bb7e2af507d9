/**
 * `session/load` and `session/resume` answered from a session store, by any server process.
 * Layer: typed layer (what the router adds for an agent with a `sessionStore`). The same rules
 * as the Python runtime's session_replay.py and the Go one's session_replay.go.
 *
 * An agent that sets `sessionStore` gets, with no code of its own:
 * - each `session/new` it answers recorded in the store (`create`, under the params' `cwd`);
 * - each `session/update` it sends recorded in the store's history (session_history.ts), in the
 *   order sent, and written before the turn's answer: "the Agent MUST respond to the original
 *   `session/prompt` request" only once this process has kept what the turn sent, so an answered
 *   turn is never missing from a later replay, whichever process replays it. A write that fails,
 *   or that the store has not answered within `recordTimeout.ms`, makes the answer -32603 (one
 *   log line), never a turn a replay would not show;
 * - `session/load` answered from the store: "The Agent MUST replay the entire conversation to the
 *   Client in the form of `session/update` notifications" (v1 `session-setup.mdx`), then the
 *   result. A history past the store's cap replays its last `historyLimit` updates and says how
 *   many it dropped in the result's `_meta` (`REPLAY_META`) and in one warning line;
 * - `session/resume` answered from the store: "resume the session context, allowing the
 *   conversation to continue without replaying the message history";
 * - both advertised in `initialize` (`loadSession`, `sessionCapabilities.resume`), unless the
 *   agent implements them itself (its own handlers are used, and its updates are still recorded).
 *
 * Where the edition's resume replays from a cursor the client names (its `Behaviour.resume`, ACP
 * v2, which has no `session/load`), `session/resume` replays as that rule says (session_resume.ts):
 * omitted or null `replayFrom`, nothing; `{"type": "start"}`, the retained history, then the
 * `replay_complete` marker; another cursor, -32602. Then "a current `state_update` after any
 * requested history replay and before this response, even without replay" (the session's
 * foreground state on this connection: `running` while its work runs here, else `idle`). "After
 * receiving the request, the Agent MUST hold live updates for the session during replay": the
 * session's updates this connection sends meanwhile wait, and are recorded and sent once the
 * state update is. v2 answers a prompt at insertion: its answer waits for the echo's write, and
 * a work's updates are written before its idle update (`commits`).
 * The capability is the edition's as for v1 (`capabilities.session`, the baseline with
 * `session/resume` among it): the router advertises what the store serves.
 *
 * A session the store does not know is -32002 (ACP's "Resource not found").
 */

import type { Behaviour, ResumeReplay, StateUpdates } from "./behaviour.js";
import { INTERNAL_ERROR, RequestError } from "./errors.js";
import { RESOURCE_NOT_FOUND } from "./file_service.js";
import type { Replay } from "./session_history.js";
import { isHistory, replayed, replayWanted, stateSnapshot } from "./session_resume.js";
import type { SessionStore } from "./session_store.js";

/** The `_meta` key of a `session/load` result whose replay lost updates to the cap:
 * `{"replayed": n, "dropped": k, "limit": historyLimit}`. */
export const REPLAY_META = "acp-codegen/replay";
/** How long each write of a connection's updates may take, in milliseconds (30,000; read when a
 * connection starts): a store that has not answered by then fails the write, which makes the
 * turn's answer -32603 as any failed write does, so a hung database never holds an answer (the
 * same bound in every runtime: Python `RECORD_TIMEOUT`, Go `acp.RecordTimeout`). */
export const recordTimeout = { ms: 30_000 };
const UPDATE = "session/update";
const LOAD = "session/load";

/** A store that keeps a history: what a `SessionReplay` is made on. */
type HistoryStore = SessionStore & {
  appendUpdates(sessionId: string, updates: readonly unknown[]): Promise<void>;
  readUpdates(sessionId: string): Promise<Replay>;
};

/** One connection's share of a store: the updates it sent not yet written, and the methods
 * answered from the store. Null for a store that keeps no history. */
export function sessionReplay(
  store: SessionStore | undefined,
  behaviour: Behaviour | null = null,
  log: (line: string) => void = (line) => console.warn(line),
): SessionReplay | null {
  if (store === undefined || store.appendUpdates === undefined || store.readUpdates === undefined) return null;
  return new SessionReplay(store as HistoryStore, log, behaviour);
}

/** A session's replays in progress; `done` settles when the last one ended. */
interface Hold {
  count: number;
  readonly done: Promise<void>;
  readonly release: () => void;
}

export class SessionReplay {
  private pending: Array<[string, unknown]> = [];
  private draining: Promise<void> | null = null;
  private failed: string | null = null;
  private readonly timeoutMs = recordTimeout.ms;
  private readonly rule: ResumeReplay | null;
  private readonly states: StateUpdates | null;
  private readonly prompt: string | null;
  private readonly served = new Set<string>([LOAD]);
  /** The sessions whose live updates wait for a replay in progress. */
  private readonly holds = new Map<string, Hold>();
  /** The session's foreground state on this connection (set by the connection). */
  stateOf: (sessionId: string) => string | null = () => null;

  constructor(
    readonly store: HistoryStore,
    private readonly log: (line: string) => void,
    behaviour: Behaviour | null = null,
  ) {
    this.rule = behaviour?.resume ?? null;
    this.states = behaviour?.lifecycle?.states ?? null;
    this.prompt = behaviour?.lifecycle?.prompt ?? null;
    if (this.rule !== null && (this.rule.cursor === null || this.states !== null)) this.served.add(this.rule.method);
  }

  /** Queues a sent `session/update` (its params); appended in the background, in order. What is
   * not history (the edition's `notHistory`) is not recorded. */
  record(method: string, params: unknown): void {
    if (method !== UPDATE || typeof params !== "object" || params === null) return;
    const { sessionId, update } = params as { sessionId?: unknown; update?: unknown };
    if (typeof sessionId !== "string" || !isHistory(this.rule, update)) return;
    this.pending.push([sessionId, update]);
    this.draining ??= this.drain();
  }

  /** Whether sending `method` must go through `send` (a replay holds the updates). */
  delays(method: string): boolean {
    return method === UPDATE && this.holds.size > 0;
  }

  /** Records and sends a session update once its session's replay ended, if one is in progress. */
  async send(params: unknown, notify: (method: string, params: unknown) => Promise<void>): Promise<void> {
    const sessionId = (params as { sessionId?: unknown } | null)?.sessionId;
    const hold = typeof sessionId === "string" ? this.holds.get(sessionId) : undefined;
    if (hold !== undefined) await hold.done;
    this.record(UPDATE, params);
    await notify(UPDATE, params);
  }

  private hold(sessionId: string): Hold {
    let hold = this.holds.get(sessionId);
    if (hold === undefined) {
      let release!: () => void;
      const done = new Promise<void>((resolve) => (release = resolve));
      hold = { count: 0, done, release };
      this.holds.set(sessionId, hold);
    }
    hold.count += 1;
    return hold;
  }

  private release(sessionId: string, hold: Hold): void {
    hold.count -= 1;
    if (hold.count === 0) {
      this.holds.delete(sessionId);
      hold.release();
    }
  }

  private async drain(): Promise<void> {
    await Promise.resolve(); // what the same tick sends goes in one append
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        for (const [sessionId, updates] of runs(batch)) {
          try {
            await within(this.store.appendUpdates(sessionId, updates), this.timeoutMs);
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

  /** Whether the store answers `method` (`session/load`; `session/resume` where the edition has
   * a rule for it). */
  answers(method: string): boolean {
    return this.served.has(method);
  }

  /** Waits for what was recorded so far, without throwing: a failed write stays for the next
   * `barrier()` (the next answer) to report. */
  async settled(): Promise<void> {
    while (this.draining !== null) await this.draining;
  }

  /** Whether `method` is the edition's inserted prompt, whose work's updates are written before
   * it returns (so before its idle update; inside the work, so that a `session/cancel` arriving
   * meanwhile still ends it `cancelled`). */
  commits(method: string): boolean {
    return this.rule?.cursor != null && this.prompt === method;
  }

  /** Answers `session/load` (the replay sent first with `notify`, not recorded again) or
   * `session/resume` (`params`: the request's, as received). */
  async answer(method: string, params: unknown, notify: (method: string, params: unknown) => Promise<void>): Promise<unknown> {
    const sessionId = (params as { sessionId: string }).sessionId;
    const rule = method === LOAD ? null : this.rule;
    const replaying = rule === null ? true : replayWanted(rule, params); // -32602 before anything is sent
    if ((await this.store.get(sessionId)) === undefined) throw new RequestError(RESOURCE_NOT_FOUND, "Resource not found", { sessionId });
    if (rule === null) return this.replay(sessionId, (update) => notify(UPDATE, { sessionId, update }));
    if (rule.cursor === null || this.states === null) return {};
    const states = this.states;
    // "After receiving the request, the Agent MUST hold live updates for the session during
    // replay": from here until the current state is sent.
    const hold = this.hold(sessionId);
    try {
      let result: unknown = {};
      if (replaying) {
        result = await this.replay(sessionId, (update) => notify(UPDATE, { sessionId, update }), (updates) => replayed(rule, updates));
      } else {
        await this.barrier();
      }
      const state = this.stateOf(sessionId) ?? states.idle;
      await notify(UPDATE, { sessionId, update: stateSnapshot(states, state) });
      return result;
    } finally {
      this.release(sessionId, hold);
    }
  }

  /** Sends the session's kept updates (as `sent` makes them: the history, then a marker); the
   * result, with `_meta` saying what the cap cut. */
  private async replay(
    sessionId: string,
    send: (update: unknown) => Promise<void>,
    sent: (updates: readonly unknown[]) => readonly unknown[] = (updates) => updates,
  ): Promise<unknown> {
    await this.barrier(); // this connection's own updates first
    const replay = await this.store.readUpdates(sessionId);
    for (const update of sent(replay.updates)) await send(update);
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

/** `work`, or an error once `ms` have passed (the work goes on; its outcome is dropped). */
async function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms / 1000}s`)), ms);
  });
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
