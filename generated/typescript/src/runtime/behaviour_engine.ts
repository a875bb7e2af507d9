// Copied by acp-codegen from templates/typescript/runtime/behaviour_engine.ts: edit it there, then run:
//   make generate
/**
 * The behaviour engine: every protocol rule a role router carries out around the user's handlers.
 * Layer: typed layer (between the role router, roles.ts, and the user's handlers; it meets the
 * dispatcher through `Connection`'s public methods and the `Router` calls the router forwards).
 *
 * One `BehaviourEngine` per connection reads the edition's `Behaviour` (behaviour.ts, rendered per
 * edition from the IR) and the side's entry of its `turnRules` (`turnRuleFor`), and decides, per
 * method, what happens around the handler: version negotiation and capabilities in `initialize`,
 * v1's turns that `session/cancel` ends with a result, v2's prompt lifecycle (the agent's
 * foreground work, foreground.ts; the client's session views, session_view.ts), `session/cancel`
 * and `session/close`, the answer to a target cancel nobody handles, and the result a request the
 * peer cancels gets. The router has one path for every request: it routes, checks the params and
 * hands the call to `request`, which runs it as is unless a rule owns the method. Nothing here
 * asks which edition it serves: every branch is on the rules' data.
 *
 * v1's turn rules, prompt-turn.mdx § Cancellation: the Agent "MUST respond to the original
 * `session/prompt` request with the `cancelled` stop reason" ("Agents MUST catch these errors and
 * return the semantically meaningful `cancelled` stop reason"), and the Client "MUST respond to all
 * pending `session/request_permission` requests with the `cancelled` outcome" after it sends
 * `session/cancel`. The connection's in-flight table holds the turns: the cancel, received
 * (`received`) or sent by this side (`sent`, from the typed peers' link), aborts the session's
 * requests of the rule's method with a `TurnCancelled` reason (their nested requests with them:
 * "MAY cancel the corresponding request activity and all nested activities", cancellation.mdx),
 * and `cancelledResult` answers each with the rule's result, never an error.
 */

import {
  initializeAnswer,
  negotiate,
  targetNotCancellable,
  turnRuleFor,
  type Behaviour,
  type TargetCancel,
  type TurnRule,
} from "./behaviour.js";
import type { ClientState } from "./client_state.js";
import type { Connection, IncomingRequest } from "./connection.js";
import { REQUEST_CANCELLED, RequestError } from "./errors.js";
import { Foreground, insertionLifecycle, type AroundRequest, type InsertionLifecycle } from "./foreground.js";
import { SessionViews, type SessionSender } from "./session_view.js";

/** The abort reason of a request ended by a `TurnRule`: answered with `result`. */
export class TurnCancelled extends Error {
  constructor(readonly result: unknown) {
    super("cancelled by the session's turn");
    this.name = "TurnCancelled";
  }
}

/** Where a handler's signal comes from: its request, the connection, a foreground work. Read only
 * when used (a request's `AbortSignal` is made on first use, connection.ts). */
export interface SignalSource {
  readonly signal: AbortSignal;
}

/** What a foreground work's context adds: its session and the inserted message's id. */
export interface WorkScope {
  readonly sessionId: string;
  readonly messageId: string;
}

/** The user's handler bound to its checked params (or what the SDK answers from the handlers
 * object), run with a signal's source, the wrapper of its nested requests and, for a foreground
 * work, its scope. */
export type Call = (source: SignalSource, around?: AroundRequest | null, work?: WorkScope) => Promise<unknown>;

/** What the engine reads of the side it serves (the role router's routes and handlers). */
export interface ServedSide {
  /** The request methods this side handles (read once, when the engine is made). */
  readonly requests: Iterable<string>;
  /** Whether this side receives notification `method` (the client receives the state updates). */
  receives(method: string): boolean;
  /** Whether this side serves `method` (advertised in `initialize`): a request it answers, a
   * notification it receives. The engine adds what it answers itself (the lifecycle's close). */
  serves(method: string): boolean;
}

function sessionOf(params: unknown): unknown {
  return typeof params === "object" && params !== null ? (params as { sessionId?: unknown }).sessionId : undefined;
}

export class BehaviourEngine {
  /** This side's entry of the behaviour's `turnRules`; null: none. */
  readonly turnRule: TurnRule | null;
  /** The agent's foreground work, where the lifecycle answers at insertion and this side handles
   * its prompt: the prompt's handler is the work, the SDK answers the request. */
  private foreground: Foreground | null = null;
  /** The client's session views, where the lifecycle answers at insertion and this side receives
   * its state updates; null elsewhere. */
  views: SessionViews<unknown, unknown> | null = null;
  private readonly lifecycle: InsertionLifecycle | null;
  /** This side handles the lifecycle's prompt (the agent): it runs the foreground work. */
  private readonly works: boolean;
  /** The requests a rule acts around, fixed per connection: one set lookup per request. */
  private readonly owned: ReadonlySet<string>;
  private readonly targets: ReadonlyMap<string, TargetCancel>;

  constructor(
    readonly behaviour: Behaviour,
    private readonly side: ServedSide,
    private readonly connection: Connection,
    private readonly problem: (message: string) => void,
  ) {
    const requests = new Set(side.requests);
    this.turnRule = turnRuleFor(behaviour, requests);
    const lifecycle = insertionLifecycle(behaviour.lifecycle);
    this.lifecycle = lifecycle;
    this.targets = new Map(behaviour.targetCancels.map((rule) => [rule.method, rule]));
    const owned = [behaviour.negotiation.method, ...this.targets.keys()];
    this.works = lifecycle !== null && requests.has(lifecycle.prompt);
    if (lifecycle !== null && this.works) {
      owned.push(lifecycle.prompt);
      if (lifecycle.close !== null) owned.push(lifecycle.close);
    }
    this.owned = new Set(owned);
  }

  /** Starts what the lifecycle needs once this side's typed peers' `link` exists: the agent's
   * foreground (it reports the work's state through `link`), the client's session views. */
  /** The session's foreground state on this connection (null: no lifecycle reports one). */
  currentState(sessionId: string): string | null {
    return this.foreground === null ? null : this.foreground.currentState(sessionId);
  }

  bind(link: SessionSender, state: ClientState | null): void {
    const lifecycle = this.lifecycle;
    if (lifecycle === null) return;
    if (this.works) {
      this.foreground = new Foreground(lifecycle, (method, params) => link.notify(method, params), this.problem, this.connection.signal);
    }
    if (this.side.receives(lifecycle.states.notification)) this.views = new SessionViews(lifecycle, link, state);
  }

  // -- requests ----------------------------------------------------------------------------

  /** Whether a rule answers `method` when the user does not handle it (`session/close`, a target
   * cancel); the router answers any other unhandled request -32601 before checking its params. */
  answers(method: string): boolean {
    return this.targets.has(method) || (this.foreground !== null && method === this.lifecycle?.close);
  }

  /** A version asked is checked before the params' shape: a client of another version sends its
   * version's params, and should learn which versions meet, not which fields it lacks. Throws the
   * negotiation's error for the raw params of `initialize` asking a version none meets. */
  checkVersion(raw: unknown): void {
    const { negotiation } = this.behaviour;
    const asked = (raw as { [key: string]: unknown } | null | undefined)?.[negotiation.field];
    if (Number.isInteger(asked)) negotiate(asked, [negotiation]);
  }

  /** `call` (undefined: nothing of the user's answers `method`) run under the rules of `method`,
   * `params` being its checked params. A method no rule owns is the call itself. */
  request(method: string, params: unknown, request: IncomingRequest, call: Call | undefined): Promise<unknown> {
    if (!this.owned.has(method)) {
      if (call === undefined) throw RequestError.methodNotFound(method);
      return call(request);
    }
    return this.ruled(method, params, request, call);
  }

  private async ruled(method: string, params: unknown, request: IncomingRequest, call: Call | undefined): Promise<unknown> {
    const { negotiation } = this.behaviour;
    if (method === negotiation.method && call !== undefined) {
      const agreed = negotiate((params as { [key: string]: unknown })[negotiation.field], [negotiation]);
      const result = await call(request);
      // "The highest protocol version supported by the agent that is at or below the version
      // requested by the client": the SDK's to say, with the capabilities of what is served.
      return initializeAnswer(result, agreed, this.behaviour.capabilities, (m) => this.serves(m));
    }
    const { foreground, lifecycle } = this;
    if (foreground !== null && lifecycle !== null) {
      const session = String(sessionOf(params));
      if (method === lifecycle.prompt && call !== undefined) {
        // PromptResponse: answered at insertion; the user's handler is the work that follows.
        return foreground.prompt(session, request, params, ({ signal, around, messageId }) =>
          call({ signal }, around, { sessionId: session, messageId }),
        );
      }
      if (method === lifecycle.close) {
        await foreground.close(session);
        // CloseSessionRequest: "Closing a session that does not exist or is not active SHOULD succeed".
        if (call === undefined) return {};
      }
    }
    if (call !== undefined) return call(request);
    const target = this.targets.get(method);
    if (target !== undefined) throw targetNotCancellable(target, params);
    throw RequestError.methodNotFound(method);
  }

  /** Whether `initialize` advertises what needs `method`: the side serves it, or the engine does
   * (the lifecycle's close: it cancels the work and answers `{}`). */
  private serves(method: string): boolean {
    return this.side.serves(method) || (this.foreground !== null && method === this.lifecycle?.close);
  }

  /** A turn rule's result; or, for a request the peer cancelled with `$/cancel_request`, the
   * edition's cancel outcome for its method (v2 RequestPermissionOutcome: "The client answers a
   * request the agent cancels with `$/cancel_request` with this outcome"); undefined: -32800. */
  cancelledResult(reason: unknown, request: IncomingRequest): unknown {
    if (reason instanceof TurnCancelled) return reason.result;
    if (reason instanceof RequestError && reason.code === REQUEST_CANCELLED) {
      return this.behaviour.cancelOutcomes.find((o) => o.method === request.method)?.result;
    }
    return undefined;
  }

  // -- notifications -----------------------------------------------------------------------

  /** A notification as it arrives, before its handler: `session/cancel` cancels the session's
   * turns (v1, a rule this side receives) or its foreground work and held prompts (v2). */
  received(method: string, params: unknown): void {
    const rule = this.turnRule;
    if (rule !== null && rule.received && method === rule.cancel) this.cancelTurns(rule, params);
    const foreground = this.foreground;
    if (foreground !== null && method === this.lifecycle?.cancel) {
      const session = sessionOf(params);
      if (typeof session === "string") void foreground.cancel(session);
    }
  }

  /** A checked notification the rules follow: the state updates feed the client's views. */
  observe(method: string, decoded: unknown): void {
    if (this.views !== null && method === this.lifecycle?.states.notification) this.views.receive(decoded);
  }

  /** A notification this side is sending: its own turn rule's cancel answers the session's
   * pending turns (the client's permission requests) with the rule's result. */
  sent(method: string, params: unknown): void {
    const rule = this.turnRule;
    if (rule !== null && !rule.received && method === rule.cancel) this.cancelTurns(rule, params);
  }

  private cancelTurns(rule: TurnRule, params: unknown): void {
    const session = sessionOf(params);
    this.connection.cancelIncoming(
      (request) => request.method === rule.method && sessionOf(request.params) === session,
      new TurnCancelled(rule.result),
    );
  }
}
