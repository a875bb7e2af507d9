// Copied by acp-codegen from templates/typescript/runtime/session_view.ts: edit it there, then run:
//   make generate
/**
 * The client's view of one session under a prompt lifecycle answered at INSERTION (v2): send a
 * prompt and get its message id, follow the session's updates, and wait until its foreground work
 * is idle again, with the stop reason. Layer: typed layer (the role router feeds it each decoded
 * `session/update`; it sends through the typed peers' link). Methods, tags and values come from the
 * edition's `PromptLifecycle`.
 *
 * PromptResponse: "Processing and completion are reported through `state_update` session
 * updates"; StateUpdate: "A new session defaults to idle until a state update reports otherwise."
 *
 * A view also reads the session as its updates left it (`sessionState`, `stateSnapshot()`,
 * `onStateChange()`): the connection's client state (client_state.ts), fed by the role router.
 */

import type { Applied, ClientState } from "./client_state.js";
import type { RequestOptions } from "./connection.js";
import { any, type Decoder } from "./decoding.js";
import type { InsertionLifecycle } from "./foreground.js";
import type { SessionState, Snapshot } from "./session_state.js";

type Wire = { readonly [key: string]: unknown };

/** What a view sends through (a `PeerLink`). */
export interface SessionSender {
  request(method: string, params: unknown, decode?: Decoder, options?: RequestOptions): Promise<unknown>;
  notify(method: string, params: unknown): Promise<void>;
}

/** The end of a piece of foreground work: the idle update's stop reason (null: not reported). */
export interface Idle {
  readonly stopReason: string | null;
}

export class SessionView<Update, Block> {
  /** Every update of this session received since the view was made, in arrival order. */
  readonly updates: Update[] = [];
  /** The foreground state last reported (`idle` until a state update says otherwise). */
  state: string;
  /** The stop reason of the last idle update (null: none reported yet). */
  stopReason: string | null = null;
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly sessionId: string,
    private readonly lifecycle: InsertionLifecycle,
    private readonly sender: SessionSender,
    private readonly promptResult: Decoder = any,
    private readonly clientState: ClientState | null = null,
  ) {
    this.state = lifecycle.states.idle;
  }

  /** The session as its updates left it: messages with their chunks, tool calls, terminals, the
   * plan, commands, config options, info, usage, the run state, each keyed as the schema's
   * `x-state` says (`get("toolCall")`, `entries("agentMessage")`, `log`, `problems`). (`state`
   * is the run state string.) */
  get sessionState(): SessionState {
    if (this.clientState === null) throw new Error("this connection keeps no client state");
    return this.clientState.session(this.sessionId);
  }

  /** `sessionState.snapshot()`: the session's state as plain JSON (a copy). */
  stateSnapshot(): Snapshot {
    return this.sessionState.snapshot();
  }

  /** Calls `listener` with what changed after each message applied to this session's state
   * (`Applied.changes`: target, entry id, action); returns the function that unsubscribes it. */
  onStateChange(listener: (applied: Applied) => void): () => void {
    if (this.clientState === null) throw new Error("this connection keeps no client state");
    return this.clientState.subscribe(listener, this.sessionId);
  }

  /** Sends a prompt; resolves with the inserted message's id (a held prompt resolves when the
   * agent inserts it). */
  async prompt(prompt: Block[], options?: RequestOptions): Promise<string> {
    const params = { sessionId: this.sessionId, prompt };
    const answer = (await this.sender.request(this.lifecycle.prompt, params, this.promptResult, options)) as Wire;
    return String(answer[this.lifecycle.messageId]);
  }

  /** `session/cancel`: the session's foreground work and its prompts not yet inserted. */
  cancel(): Promise<void> {
    return this.sender.notify(this.lifecycle.cancel, { sessionId: this.sessionId });
  }

  /**
   * Resolves with the idle update that ends the work of the prompt inserted as `messageId` (the
   * first idle after its echo: a `user_message`, or a `user_message_chunk`, with that id), however
   * early it arrived; without an id, at once if the
   * session is idle, else at the next idle update.
   */
  idle(messageId?: string): Promise<Idle> {
    const start = messageId === undefined ? this.updates.length : -1;
    if (messageId === undefined && this.state === this.lifecycle.states.idle) {
      return Promise.resolve({ stopReason: this.stopReason });
    }
    return new Promise((resolve) => {
      const check = (): void => {
        const found = this.idleAfter(messageId, start);
        if (found === null) return;
        this.wakers.delete(check);
        resolve(found);
      };
      this.wakers.add(check);
      check();
    });
  }

  /** The updates from the first one on, then each as it arrives (ends never: break out). */
  async *stream(): AsyncGenerator<Update> {
    let next = 0;
    for (;;) {
      while (next < this.updates.length) yield this.updates[next++] as Update;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.wakers.delete(wake);
          resolve();
        };
        this.wakers.add(wake);
      });
    }
  }

  /** One update of this session (the router calls it, in arrival order). */
  receive(update: Update): void {
    this.updates.push(update);
    const states = this.lifecycle.states;
    const wire = update as Wire;
    if (wire[states.updateTag] === states.updateValue && typeof wire[states.stateTag] === "string") {
      this.state = wire[states.stateTag] as string;
      if (this.state === states.idle) this.stopReason = stopReasonOf(wire, states.stopReason);
    }
    for (const wake of [...this.wakers]) wake();
  }

  private idleAfter(messageId: string | undefined, start: number): Idle | null {
    const states = this.lifecycle.states;
    let from = start;
    if (messageId !== undefined) {
      from = this.updates.findIndex((u) => {
        const wire = u as Wire;
        const tag = wire[states.updateTag];
        const echo = tag === states.userMessage || tag === states.userChunk;
        return echo && wire["messageId"] === messageId;
      });
      if (from < 0) return null;
    }
    for (let index = from; index < this.updates.length; index++) {
      const wire = this.updates[index] as Wire;
      if (wire[states.updateTag] === states.updateValue && wire[states.stateTag] === states.idle) {
        return { stopReason: stopReasonOf(wire, states.stopReason) };
      }
    }
    return null;
  }
}

/** IdleStateUpdate: "Receivers treat an omitted, `null`, or malformed `stopReason` as the agent
 * not reporting one." */
function stopReasonOf(update: Wire, field: string): string | null {
  const value = update[field];
  return typeof value === "string" ? value : null;
}

/** The views of one connection's sessions, fed by the router. */
export class SessionViews<Update, Block> {
  private readonly views = new Map<string, SessionView<Update, Block>>();

  constructor(
    private readonly lifecycle: InsertionLifecycle,
    private readonly sender: SessionSender,
    private readonly clientState: ClientState | null = null,
  ) {}

  /** The view of `sessionId` (made on first use; it sees the updates from then on). */
  view(sessionId: string, promptResult?: Decoder): SessionView<Update, Block> {
    let view = this.views.get(sessionId);
    if (view === undefined) {
      view = new SessionView<Update, Block>(sessionId, this.lifecycle, this.sender, promptResult, this.clientState);
      this.views.set(sessionId, view);
    }
    return view;
  }

  /** A decoded `session/update` notification's params. */
  receive(params: unknown): void {
    const { sessionId, update } = params as { sessionId?: unknown; update?: unknown };
    if (typeof sessionId === "string") this.views.get(sessionId)?.receive(update as Update);
  }
}
