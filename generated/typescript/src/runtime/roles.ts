// Copied by acp-codegen from templates/typescript/runtime/roles.ts: edit it there, then run:
//   make generate
/**
 * What the generated role modules (`agent.ts`, `client.ts`) are built from: a router that decodes
 * params and calls the user's handler by name, typed peers' link to the connection, and ACP's
 * feature-level cancellation (`session/cancel`). Layer: typed layer (it meets the dispatcher
 * through `Router` and `Connection`'s public methods only).
 *
 * Cancellation is ambient: a handler's context carries the request's `signal`, and the peer
 * handle in that context sends every nested request with it, so cancelling a request cancels
 * the requests its handler made (ACP cancellation.mdx: "MAY cancel the corresponding request
 * activity and all nested activities related to that request"). So is trace context: that peer
 * handle copies the request's `traceparent`, `tracestate` and `baggage` (the root of its
 * `params._meta`) into every request and notification it sends (trace_context.ts).
 *
 * What an edition does beyond routing is its `Behaviour` data (behaviour.ts): the `initialize`
 * answer's negotiated version and advertised capabilities, the result of a request cancelled by
 * `$/cancel_request`, the answer to an unhandled target cancel, and, where the prompt lifecycle
 * answers at insertion, the agent's foreground work (foreground.ts: the prompt handler is the
 * work, the SDK answers the request) and the client's session views (session_view.ts). A client
 * keeps the state its messages leave (client_state.ts, from the edition's `STATE_TABLE`): the router
 * feeds it each checked message the table covers, the peer link what the client sends and gets
 * back.
 */

import { initializeAnswer, negotiate, targetNotCancellable, type Behaviour } from "./behaviour.js";
import {
  Connection,
  type ConnectionOptions,
  type IncomingRequest,
  type RequestOptions,
  type Router,
} from "./connection.js";
import { ClientState, sentWithState, type StateTable } from "./client_state.js";
import { any, type Decoder } from "./decoding.js";
import { REQUEST_CANCELLED, RequestError, type RequestId } from "./errors.js";
import { Foreground, insertionLifecycle, type AroundRequest, type InsertionLifecycle } from "./foreground.js";
import { SessionViews } from "./session_view.js";
import { Switchboard } from "./switchboard.js";
import { traceContextOf, withTraceContext, type TraceContext } from "./trace_context.js";
import type { Transport } from "./transports/transport.js";

export interface Route {
  /** The handler's name on the user's object (`sessionPrompt`). */
  readonly handler: string;
  readonly params: Decoder;
}

export interface Routes {
  readonly requests: ReadonlyMap<string, Route>;
  readonly notifications: ReadonlyMap<string, Route>;
}

/**
 * ACP's feature-level cancellation (prompt-turn.mdx § Cancellation): `cancel` (a notification
 * with a `sessionId`) ends the session's in-flight `method` requests with `result`, never an
 * error. `received`: this side handles `method` and receives `cancel` (the agent's prompt);
 * otherwise this side sends `cancel` and answers its own pending `method` handlers (the client's
 * permission requests).
 */
export interface TurnRule {
  readonly method: string;
  readonly cancel: string;
  readonly received: boolean;
  readonly result: unknown;
}

/** The abort reason of a request ended by a `TurnRule`: answered with `result`. */
export class TurnCancelled extends Error {
  constructor(readonly result: unknown) {
    super("cancelled by the session's turn");
    this.name = "TurnCancelled";
  }
}

/** What every handler gets besides its params. */
export interface HandlerContext {
  /** The request's id; null for a notification. */
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the request is cancelled (or, for a notification, the connection closes). */
  readonly signal: AbortSignal;
}

/** Where a handler's signal comes from: its request, the connection, a foreground work. Read only
 * when used (a request's `AbortSignal` is made on first use, connection.ts). */
export interface SignalSource {
  readonly signal: AbortSignal;
}

/** A typed peer's way to the connection; bound to a handler's signal (and its request's trace
 * context) inside a handler. */
export class PeerLink {
  constructor(
    private readonly connection: Connection,
    private readonly turnRule: TurnRule | null,
    private readonly source: SignalSource | null = null,
    private readonly around: AroundRequest | null = null,
    private readonly trace: TraceContext | null = null,
    private readonly state: ClientState | null = null,
  ) {}

  request(method: string, given: unknown, decode: Decoder = any, options: RequestOptions = {}): Promise<unknown> {
    const params = this.traced(given);
    const own = this.source === null ? null : this.source.signal;
    const theirs = options.signal;
    const signal = own === null ? theirs : theirs == null ? own : AbortSignal.any([own, theirs]);
    const send = (): Promise<unknown> =>
      this.connection.request(method, params, decode, signal === theirs ? options : { ...options, signal });
    const sent = this.around === null ? send : () => (this.around as AroundRequest)(method, send);
    return this.state === null ? sent() : sentWithState(this.state, method, params, sent);
  }

  notify(method: string, params: unknown): Promise<void> {
    const rule = this.turnRule;
    if (rule !== null && !rule.received && method === rule.cancel) {
      // prompt-turn.mdx: the Client "MUST respond to all pending `session/request_permission`
      // requests with the `cancelled` outcome".
      cancelTurn(this.connection, rule, params);
    }
    return this.connection.notify(method, this.traced(params));
  }

  /** This link, sending every request with `signal` too (a handler's nested requests), each
   * through `around` when given (a foreground work's), and every request and notification with
   * the trace context of `handled`, the params of the request being handled. */
  within(source: SignalSource, around: AroundRequest | null = null, handled: unknown = undefined): PeerLink {
    return new PeerLink(this.connection, this.turnRule, source, around, traceContextOf(handled), this.state);
  }

  private traced(params: unknown): unknown {
    return this.trace === null ? params : withTraceContext(params, this.trace);
  }
}

function sessionOf(params: unknown): unknown {
  return typeof params === "object" && params !== null ? (params as { sessionId?: unknown }).sessionId : undefined;
}

function cancelTurn(connection: Connection, rule: TurnRule, params: unknown): void {
  const session = sessionOf(params);
  connection.cancelIncoming(
    (request) => request.method === rule.method && sessionOf(request.params) === session,
    new TurnCancelled(rule.result),
  );
}

type Handler = (this: object, ...args: unknown[]) => Promise<unknown>;

/** The shape of a generated role module's wiring (`connectAgent` fills it in). */
export interface RoleWiring<P> {
  readonly routes: Routes;
  readonly turnRule: TurnRule | null;
  /** The typed handle on the other side (`ClientPeer`) over a link. */
  readonly peer: (link: PeerLink) => P;
  /** The context property that holds that handle (`client`). */
  readonly peerKey: string;
  readonly behaviour: Behaviour;
  /** Methods the SDK answers itself from what the handlers object holds (the agent's
   * `sessionStore` answers `session/list`) when the user wrote no handler: advertised in
   * `initialize` like a handled method. */
  readonly provided?: ReadonlyMap<string, Provided>;
  /** The client's state table (`STATE_TABLE`): the connection keeps the state its messages leave. */
  readonly stateTable?: StateTable;
}

/** How the SDK answers a method from the handlers object: the answering function (given the
 * checked params), or undefined when the object holds nothing to answer from. */
export type Provided = (handlers: object) => ((params: unknown) => Promise<unknown>) | undefined;

/** The foreground work's context: the handler context of the prompt it belongs to, with the
 * work's own signal, its session and the inserted message's id. */
export interface WorkContext extends HandlerContext {
  readonly sessionId: string;
  readonly messageId: string;
}

/** A handler's context. Its signal is read from its source only when asked for; its peer is
 * under the wiring's key (set in the constructor, so one router's contexts share one shape). */
class Context implements HandlerContext {
  readonly #source: SignalSource;
  [peer: string]: unknown;

  constructor(
    readonly requestId: RequestId,
    readonly method: string,
    source: SignalSource,
    peerKey: string,
    peer: unknown,
  ) {
    this.#source = source;
    this[peerKey] = peer;
  }

  get signal(): AbortSignal {
    return this.#source.signal;
  }
}

class RoleRouter<P> implements Router {
  private readonly notificationContexts = new Map<string, HandlerContext>();
  /** The agent's foreground work, where the lifecycle answers at insertion and this side handles
   * its prompt: the prompt's handler is the work, the SDK answers the request. */
  private readonly foreground: Foreground | null;
  private readonly lifecycle: InsertionLifecycle | null;

  constructor(
    private readonly handlers: object,
    private readonly wiring: RoleWiring<P>,
    private readonly connection: Connection,
    private readonly link: PeerLink,
    private readonly views: SessionViews<unknown, unknown> | null,
    problem: (message: string) => void,
    private readonly state: ClientState | null = null,
  ) {
    const lifecycle = insertionLifecycle(wiring.behaviour.lifecycle);
    this.lifecycle = lifecycle;
    const prompt = lifecycle === null ? undefined : wiring.routes.requests.get(lifecycle.prompt);
    this.foreground =
      lifecycle !== null && prompt !== undefined
        ? new Foreground(
            lifecycle,
            (method, params) => link.notify(method, params),
            ({ params, request, messageId, signal, around }) => {
              const work = this.handler(prompt.handler);
              if (work === undefined) throw RequestError.methodNotFound(request.method);
              const sessionId = String(sessionOf(params));
              // Object.assign, not a spread: the context's `signal` is a getter a spread would not copy.
              const context = Object.assign(this.context(request.id, request.method, { signal }, around, request.params), { sessionId, messageId });
              return work.call(handlers, params, context);
            },
            problem,
            connection.signal,
          )
        : null;
  }

  async request(request: IncomingRequest): Promise<unknown> {
    const { method } = request;
    const { negotiation, targetCancels } = this.wiring.behaviour;
    const route = this.wiring.routes.requests.get(method);
    if (route !== undefined) {
      const { foreground, lifecycle } = this;
      const handler = this.handler(route.handler);
      if (foreground !== null && lifecycle !== null && (method === lifecycle.prompt ? handler !== undefined : method === lifecycle.close)) {
        const params = route.params(request.params);
        const session = String(sessionOf(params));
        if (method === lifecycle.prompt) return foreground.prompt(session, request, params);
        await foreground.close(session);
        // CloseSessionRequest: "Closing a session that does not exist or is not active SHOULD succeed".
        if (handler === undefined) return {};
      }
      if (handler === undefined) {
        const provided = this.provided(method);
        if (provided !== undefined) return provided(route.params(request.params));
        const target = targetCancels.find((rule) => rule.method === method);
        if (target !== undefined) throw targetNotCancellable(target, route.params(request.params));
        throw RequestError.methodNotFound(method);
      }
      // A version asked is checked before the params' shape: a client of another version sends
      // its version's params, and should learn which versions meet, not which fields it lacks.
      const asked = (request.params as { [key: string]: unknown } | null | undefined)?.[negotiation.field];
      if (method === negotiation.method && Number.isInteger(asked)) negotiate(asked, [negotiation]);
      const params = route.params(request.params);
      if (this.state?.methods.has(method) === true) this.state.feed({ method, params: request.params });
      const context = this.context(request.id, method, request, null, request.params);
      if (method !== negotiation.method) return handler.call(this.handlers, params, context);
      const agreed = negotiate((params as { [key: string]: unknown })[negotiation.field], [negotiation]);
      const result = await handler.call(this.handlers, params, context);
      return initializeAnswer(result, agreed, this.wiring.behaviour.capabilities, (m) => this.handles(m));
    }
    const extension = this.handler("extensionRequest");
    if (method.startsWith("_") && extension !== undefined) {
      return extension.call(this.handlers, method, request.params, this.context(request.id, method, request, null, request.params));
    }
    throw RequestError.methodNotFound(method);
  }

  received(method: string, params: unknown): void {
    const rule = this.wiring.turnRule;
    if (rule !== null && rule.received && method === rule.cancel) cancelTurn(this.connection, rule, params);
    const foreground = this.foreground;
    if (foreground !== null && method === this.lifecycle?.cancel) {
      const session = sessionOf(params);
      if (typeof session === "string") void foreground.cancel(session);
    }
  }

  async notification(method: string, params: unknown): Promise<void> {
    const route = this.wiring.routes.notifications.get(method);
    if (route !== undefined) {
      const decoded = route.params(params);
      if (this.state?.methods.has(method) === true) this.state.feed({ method, params });
      if (this.views !== null && method === this.lifecycle?.states.notification) this.views.receive(decoded);
      const handler = this.handler(route.handler);
      if (handler !== undefined) await handler.call(this.handlers, decoded, this.notificationContext(method));
      return;
    }
    const extension = this.handler("extensionNotification");
    if (method.startsWith("_") && extension !== undefined) {
      await extension.call(this.handlers, method, params, this.context(null, method, this.connection));
    }
  }

  /** A turn rule's result; or, for a request the peer cancelled with `$/cancel_request`, the
   * edition's cancel outcome for its method (v2 RequestPermissionOutcome: "The client answers a
   * request the agent cancels with `$/cancel_request` with this outcome"). */
  cancelledResult(reason: unknown, request: IncomingRequest): unknown {
    if (reason instanceof TurnCancelled) return reason.result;
    if (reason instanceof RequestError && reason.code === REQUEST_CANCELLED) {
      return this.wiring.behaviour.cancelOutcomes.find((o) => o.method === request.method)?.result;
    }
    return undefined;
  }

  /** Whether this side serves `method`: a request it answers (a handler, the SDK from what the
   * handlers hold, or the foreground for the lifecycle's close), a notification it receives (the
   * SDK acts on the cancel; any other is handled or ignored, as the protocol lets it). */
  private handles(method: string): boolean {
    if (this.wiring.routes.notifications.has(method)) return true;
    const route = this.wiring.routes.requests.get(method);
    if (route !== undefined && this.handler(route.handler) !== undefined) return true;
    if (this.provided(method) !== undefined) return true;
    return this.foreground !== null && method === this.lifecycle?.close;
  }

  private provided(method: string): ((params: unknown) => Promise<unknown>) | undefined {
    return this.wiring.provided?.get(method)?.(this.handlers);
  }

  private handler(name: string): Handler | undefined {
    const handler = (this.handlers as Record<string, unknown>)[name];
    return typeof handler === "function" ? (handler as Handler) : undefined;
  }

  /** One context (and peer) per routed notification method, built on first use: a notification
   * has no request of its own, its signal is the connection's. */
  private notificationContext(method: string): HandlerContext {
    let context = this.notificationContexts.get(method);
    if (context === undefined) {
      context = this.context(null, method, this.connection);
      this.notificationContexts.set(method, context);
    }
    return context;
  }

  /** A handler's context; `handled`: the params of the request it handles (their trace context
   * follows everything its peer sends). */
  private context(
    requestId: RequestId,
    method: string,
    source: SignalSource,
    around: AroundRequest | null = null,
    handled: unknown = undefined,
  ): HandlerContext {
    const peer = this.wiring.peer(this.link.within(source, around, handled));
    return new Context(requestId, method, source, this.wiring.peerKey, peer);
  }
}

/** A connection serving one side's handlers; `peer` is the other side as a typed handle. Made on
 * a transport, or on a `Switchboard` whose router it takes over (an edition chosen by version). */
export class RoleConnection<P> {
  readonly connection: Connection;
  readonly peer: P;
  /** The client's session views, where the lifecycle answers at insertion; null elsewhere. */
  protected readonly views: SessionViews<unknown, unknown> | null;
  /** The state the client's messages leave, where the wiring has a state table; null elsewhere. */
  protected readonly state: ClientState | null;

  constructor(handlers: object, transport: Transport | Switchboard, wiring: RoleWiring<P>, options: ConnectionOptions = {}) {
    const problem = (message: string): void => options.onProblem?.(message);
    const lifecycle = insertionLifecycle(wiring.behaviour.lifecycle);
    const viewed = lifecycle !== null && wiring.routes.notifications.has(lifecycle.states.notification);
    let views: SessionViews<unknown, unknown> | null = null;
    const state = wiring.stateTable === undefined ? null : new ClientState(wiring.stateTable, problem);
    const router = (connection: Connection): Router => {
      const link = new PeerLink(connection, wiring.turnRule, null, null, null, state);
      if (viewed && lifecycle !== null) views = new SessionViews(lifecycle, link, state);
      return new RoleRouter(handlers, wiring, connection, link, views, problem, state);
    };
    if (transport instanceof Switchboard) {
      this.connection = transport.connection;
      transport.use(router(this.connection));
    } else {
      this.connection = new Connection(transport, router, options);
    }
    this.views = views;
    this.state = state;
    this.peer = wiring.peer(new PeerLink(this.connection, wiring.turnRule, null, null, null, state));
  }

  /** Resolves with the reason once the connection is closed (by either side). */
  get closed(): Promise<string> {
    return this.connection.closed;
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
