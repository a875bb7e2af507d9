// Copied by acp-codegen from templates/typescript/runtime/foreground.ts: edit it there, then run:
//   make generate
/**
 * The agent's side of a prompt lifecycle answered at INSERTION (v2): each session's foreground
 * work, the prompts held while it runs, and what `session/cancel` and `session/close` do to them.
 * Layer: typed layer (the behaviour engine, behaviour_engine.ts, hands it the lifecycle's requests
 * with the user's work to run; it speaks through the typed peers' link). Every method, tag and
 * value it writes comes from the edition's `PromptLifecycle` data.
 *
 * PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
 * conversation. … Processing and completion are reported through `state_update` session updates."
 * Inserting a prompt sends the `user_message` update echoing it under a fresh message id, then
 * `state_update` `running` (StateUpdate: "the agent MUST report `running` when foreground work
 * starts … and `idle` when it ends. The agent SHOULD include a stop reason on that idle update"),
 * then answers `{messageId}`; the work (the user's prompt handler) starts after that answer, with
 * a signal of its own, and its end sends `idle` with its stop reason: the one it returns
 * (undefined or null: `end_turn`), `cancelled` once its signal aborted, or the edition's failure
 * reason with the error when it throws. While the work awaits one of the lifecycle's user-action
 * requests (a permission, an elicitation) it is `requires_action` ("The agent SHOULD report
 * `requires_action` when the foreground workflow as a whole cannot progress without user action
 * … Once reported, it MUST report `running` when progress resumes"). A prompt that arrives while
 * work runs is held and inserted, in order, when the work ends. Each of these updates carries the
 * prompt's W3C trace context, as everything the work sends does (trace_context.ts).
 *
 * The lifecycle's `retryKey` (PromptRequest.idempotencyKey): "The Client generates the key and
 * sends the same key on every attempt for the same submission. … A retry of a recorded insertion
 * returns the original `messageId` without inserting another message." An insertion that carried
 * a key records it, by session (IdempotencyKey: "It is scoped to the session named by the
 * request's `sessionId`."), for as long as the session is active on this connection ("For a
 * live-only message, it MUST recognize the key while the session stays active on a connection"):
 * idle periods keep it, `session/close` forgets it. A retry is answered at once, even while that
 * insertion's work runs (no `user_message`, no state update, no work); a retry held behind work is
 * answered when its turn comes, if the attempt it repeats was inserted meanwhile, and the session
 * passes on to the next held prompt. "Omitted and `null` are equivalent and mean no key." The
 * key's range (1 to 255 characters) is the schema's: the decoder answers any other value -32602
 * before this module sees it.
 */

import { randomUUID } from "node:crypto";
import type { PromptLifecycle, StateUpdates } from "./behaviour.js";
import type { IncomingRequest } from "./connection.js";
import { RequestError, errorObject } from "./errors.js";
import { carryTraceContext } from "./trace_context.js";

/** The abort reason of foreground work ended by `session/cancel` or `session/close`. */
export class WorkCancelled extends Error {
  constructor(readonly by: string) {
    super(`foreground work cancelled by ${by}`);
    this.name = "WorkCancelled";
  }
}

/** An INSERTION lifecycle: the fields the foreground needs are present. */
export type InsertionLifecycle = PromptLifecycle & { readonly states: StateUpdates; readonly messageId: string };

export function insertionLifecycle(lifecycle: PromptLifecycle | null): InsertionLifecycle | null {
  return lifecycle !== null && lifecycle.answer === "insertion" && lifecycle.states !== null && lifecycle.messageId !== null
    ? (lifecycle as InsertionLifecycle)
    : null;
}

/** Sends one of the work's nested requests (`send`): the foreground reports the state around
 * those that wait on the user. */
export type AroundRequest = (method: string, send: () => Promise<unknown>) => Promise<unknown>;

/** What the user's work of an inserted prompt runs with. */
export interface WorkStart {
  /** The prompt request's checked params. */
  readonly params: unknown;
  readonly request: IncomingRequest;
  readonly messageId: string;
  /** Aborted by `session/cancel`, `session/close` or the connection closing. */
  readonly signal: AbortSignal;
  /** To wrap each nested request the work sends. */
  readonly around: AroundRequest;
}

/** Runs the user's work for an inserted prompt; resolves with its stop reason (undefined or null:
 * the lifecycle's `end_turn`, or `cancelled` when its signal aborted). */
export type RunWork = (start: WorkStart) => Promise<unknown>;

interface Held {
  readonly request: IncomingRequest;
  readonly params: unknown;
  readonly run: RunWork;
  resolve(answer: unknown): void;
  reject(error: unknown): void;
  /** Stops watching the request's signal (it is being inserted). */
  release(): void;
}

interface Work {
  readonly controller: AbortController;
  /** User-action requests pending (`requires_action` reported while any is). */
  waiting: number;
  /** Settles once the work has ended and its idle update is written. */
  done: Promise<void>;
}

interface Session {
  work: Work | null;
  readonly held: Held[];
}

export class Foreground {
  private readonly sessions = new Map<string, Session>();
  /** By session, the message id of each insertion that carried a retry key, by key. Apart from
   * `sessions`, whose entry may go while the session is idle: only `close` forgets these. */
  private readonly inserted = new Map<string, Map<string, string>>();

  constructor(
    private readonly lifecycle: InsertionLifecycle,
    private readonly notify: (method: string, params: unknown) => Promise<void>,
    private readonly problem: (message: string) => void,
    lifetime: AbortSignal,
  ) {
    lifetime.addEventListener("abort", () => {
      for (const id of this.sessions.keys()) void this.cancel(id, "the connection closing");
    });
  }

  /** The session's foreground state now: `running` while a work runs (`requires_action` while it
   * waits on the user), else `idle` ("A new session defaults to idle"). */
  currentState(sessionId: string): string {
    const { states } = this.lifecycle;
    const work = this.sessions.get(sessionId)?.work ?? null;
    if (work === null) return states.idle;
    return work.waiting > 0 ? states.requiresAction : states.running;
  }

  /** Whether `sessionId` has foreground work running. */
  running(sessionId: string): boolean {
    return this.sessions.get(sessionId)?.work != null;
  }

  /** The answer to a `session/prompt` (`params`: its checked params): at insertion, now or once
   * the running work ends; `run` is the work of the inserted prompt (the user's handler). */
  prompt(sessionId: string, request: IncomingRequest, params: unknown, run: RunWork): Promise<unknown> {
    const recorded = this.recorded(sessionId, params);
    if (recorded !== undefined) return Promise.resolve(this.answer(recorded)); // a retry: nothing is inserted
    const session = this.session(sessionId);
    if (session.work === null && session.held.length === 0) return this.insert(sessionId, session, request, params, run);
    return new Promise((resolve, reject) => {
      // `$/cancel_request` on a held prompt withdraws it: answered -32800 (never inserted).
      const withdraw = (): void => {
        const index = session.held.indexOf(held);
        if (index >= 0) session.held.splice(index, 1);
        reject(request.signal.reason);
      };
      const release = (): void => request.signal.removeEventListener("abort", withdraw);
      const held: Held = { request, params, run, resolve, reject, release };
      session.held.push(held);
      request.signal.addEventListener("abort", withdraw, { once: true });
    });
  }

  /**
   * CancelSessionNotification: "Notification to cancel a session's foreground work and its prompts
   * not yet inserted." Held prompts are answered -32800; the work's signal aborts (its nested
   * requests get `$/cancel_request`). Resolves once the work's idle update is written.
   */
  cancel(sessionId: string, by: string = this.lifecycle.cancel): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return Promise.resolve();
    for (const held of session.held.splice(0)) {
      held.release();
      held.reject(RequestError.cancelled(held.request.id));
    }
    const work = session.work;
    if (work === null) return Promise.resolve();
    if (!work.controller.signal.aborted) work.controller.abort(new WorkCancelled(by));
    return work.done;
  }

  /**
   * CloseSessionRequest: "The Agent MUST cancel any ongoing work related to the session as if
   * `session/cancel` was called … When closing cancels active foreground work, the Agent MUST send
   * the final updates for that work and the idle `state_update` with `stopReason: "cancelled"`
   * before responding successfully to `session/close`." Resolves after that idle update.
   */
  async close(sessionId: string): Promise<void> {
    await this.cancel(sessionId, this.lifecycle.close ?? this.lifecycle.cancel);
    const session = this.sessions.get(sessionId);
    if (session !== undefined && session.work === null && session.held.length === 0) this.sessions.delete(sessionId);
    this.inserted.delete(sessionId); // the session is no longer active: its retry keys are forgotten
  }

  private session(sessionId: string): Session {
    let session = this.sessions.get(sessionId);
    if (session === undefined) {
      session = { work: null, held: [] };
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  /** The prompt's retry key: "Omitted and `null` are equivalent and mean no key." */
  private retryKey(params: unknown): string | null {
    const field = this.lifecycle.retryKey;
    if (field === null || typeof params !== "object" || params === null) return null;
    const key = (params as { [key: string]: unknown })[field];
    return typeof key === "string" ? key : null;
  }

  /** The message id of the insertion whose retry key `params` carries, if it is recorded. */
  private recorded(sessionId: string, params: unknown): string | undefined {
    const key = this.retryKey(params);
    return key === null ? undefined : this.inserted.get(sessionId)?.get(key);
  }

  /** The answer to a prompt inserted as `messageId`. */
  private answer(messageId: string): { [key: string]: unknown } {
    return { [this.lifecycle.messageId]: messageId };
  }

  /** Sends one of `request`'s (its prompt's) updates, with the prompt's trace context. */
  private update(sessionId: string, request: IncomingRequest, update: { [key: string]: unknown }): Promise<void> {
    return this.notify(this.lifecycle.states.notification, carryTraceContext({ sessionId, update }, request.params));
  }

  private state(value: string, extra: { [key: string]: unknown } = {}): { [key: string]: unknown } {
    const states = this.lifecycle.states;
    return { [states.updateTag]: states.updateValue, [states.stateTag]: value, ...extra };
  }

  /** Inserts `request`'s prompt: `user_message`, `running`, then the answer; the work begins on
   * a later turn of the event loop, after the answer is written. */
  private async insert(sessionId: string, session: Session, request: IncomingRequest, params: unknown, run: RunWork): Promise<unknown> {
    const { states } = this.lifecycle;
    const messageId = randomUUID();
    const key = this.retryKey(params);
    if (key !== null) {
      let keys = this.inserted.get(sessionId);
      if (keys === undefined) this.inserted.set(sessionId, (keys = new Map<string, string>()));
      keys.set(key, messageId);
    }
    const controller = new AbortController();
    let begin!: (go: boolean) => void;
    const begun = new Promise<boolean>((resolve) => (begin = resolve));
    const work: Work = { controller, waiting: 0, done: Promise.resolve() };
    work.done = begun.then((go) => (go ? this.perform(sessionId, session, work, { params, request, messageId }, run) : this.ended(sessionId, session)));
    session.work = work; // from here on, prompts are held
    try {
      const prompt = (params as { prompt?: unknown } | null)?.prompt;
      // UserMessage: "Agents can send this when they accept or replay a user message."
      await this.update(sessionId, request, { [states.updateTag]: states.userMessage, messageId, content: prompt ?? [] });
      await this.update(sessionId, request, this.state(states.running));
    } catch (error) {
      begin(false);
      throw error;
    }
    setImmediate(() => begin(true));
    return this.answer(messageId);
  }

  private async perform(
    sessionId: string,
    session: Session,
    work: Work,
    start: Pick<WorkStart, "params" | "request" | "messageId">,
    run: RunWork,
  ): Promise<void> {
    const { states, endTurn, cancelled, failed } = this.lifecycle;
    const signal = work.controller.signal;
    let over = false;
    const around: AroundRequest = async (method, send) => {
      if (!states.userAction.includes(method)) return send();
      work.waiting += 1;
      try {
        if (work.waiting === 1) await this.update(sessionId, start.request, this.state(states.requiresAction));
        return await send();
      } finally {
        work.waiting -= 1;
        // "Resolving one of several requests does not itself change the state"; a work
        // cancelled meanwhile goes to idle, never back to running.
        if (work.waiting === 0 && !signal.aborted && !over) await this.update(sessionId, start.request, this.state(states.running));
      }
    };
    let extra: { [key: string]: unknown };
    try {
      const result = signal.aborted ? undefined : await run({ ...start, signal, around });
      extra = { [states.stopReason]: typeof result === "string" ? result : signal.aborted ? cancelled : endTurn };
    } catch (error) {
      if (signal.aborted) {
        // Stop reason `cancelled`: "Agents MUST catch these errors and report `cancelled`, not `error`."
        extra = { [states.stopReason]: cancelled };
      } else {
        this.problem(`the foreground work of ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`);
        // ErrorStopReason: "Details of a failure that ended active work."
        extra = failed === null ? { [states.stopReason]: endTurn } : { [states.stopReason]: failed, error: errorObject(error, start.request.id) };
      }
    }
    over = true;
    await this.update(sessionId, start.request, this.state(states.idle, extra)).catch(() => undefined);
    this.ended(sessionId, session);
  }

  /** The work is over: the next held prompt, if any, is inserted (its request answered). A held
   * retry whose attempt was inserted while it waited is answered with that insertion's message
   * id, inserts nothing, and passes the session on to the prompt held after it. */
  private ended(sessionId: string, session: Session): void {
    session.work = null;
    for (;;) {
      const next = session.held.shift();
      if (next === undefined) return;
      next.release();
      const recorded = this.recorded(sessionId, next.params);
      if (recorded !== undefined) {
        next.resolve(this.answer(recorded));
        continue;
      }
      this.insert(sessionId, session, next.request, next.params, next.run).then(next.resolve, next.reject);
      return;
    }
  }
}
