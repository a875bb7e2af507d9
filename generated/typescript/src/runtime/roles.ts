// Copied by acp-codegen from templates/typescript/runtime/roles.ts: edit it there, then run:
//   make generate
/**
 * What the generated role modules (`agent.ts`, `client.ts`) are built from: a router that decodes
 * params and calls the user's handler by name, and typed peers' link to the connection. Layer:
 * typed layer (it meets the dispatcher through `Router` and `Connection`'s public methods only).
 *
 * Cancellation is ambient: a handler's context carries the request's `signal`, and the peer
 * handle in that context sends every nested request with it, so cancelling a request cancels
 * the requests its handler made (ACP cancellation.mdx: "MAY cancel the corresponding request
 * activity and all nested activities related to that request"). So is trace context: that peer
 * handle copies the request's `traceparent`, `tracestate` and `baggage` (the root of its
 * `params._meta`) into every request and notification it sends (trace_context.ts).
 *
 * What an edition does beyond routing is its `Behaviour` data (behaviour.ts), v1's turn rules
 * among them, carried out by one `BehaviourEngine` per connection (behaviour_engine.ts): the
 * `initialize` answer's negotiated version and advertised capabilities, `session/cancel` ending a
 * session's turns (v1) or its foreground work (v2), the answer to an unhandled target cancel, the
 * result of a request cancelled by `$/cancel_request`. The router has one path for every request:
 * route, check the params, hand the call to the engine. A client keeps the state its messages
 * leave (client_state.ts, from the edition's `STATE_TABLE`): the router feeds it each checked
 * message the table covers, the peer link what the client sends and gets back.
 */

import type { Behaviour } from "./behaviour.js";
import { BehaviourEngine, type Call, type ServedSide, type SignalSource, type WorkScope } from "./behaviour_engine.js";
import {
  Connection,
  type ConnectionOptions,
  type IncomingRequest,
  type RequestOptions,
  type Router,
} from "./connection.js";
import { ClientState, sentWithState, type StateTable } from "./client_state.js";
import { any, type Decoder } from "./decoding.js";
import { RequestError, type RequestId } from "./errors.js";
import type { AroundRequest } from "./foreground.js";
import type { SessionViews } from "./session_view.js";
import { sessionReplay, type SessionReplay } from "./session_replay.js";
import type { SessionStore } from "./session_store.js";
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

// Where they were first exported: the turn rule is behaviour data, the engine carries it out.
export type { TurnRule } from "./behaviour.js";
export { TurnCancelled, type SignalSource } from "./behaviour_engine.js";

/** What every handler gets besides its params. */
export interface HandlerContext {
  /** The request's id; null for a notification. */
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the request is cancelled (or, for a notification, the connection closes). */
  readonly signal: AbortSignal;
}

/** A typed peer's way to the connection; bound to a handler's signal (and its request's trace
 * context) inside a handler. What it notifies passes the behaviour engine first (`sent`: the
 * client's `session/cancel` answers its own pending permission requests). */
export class PeerLink {
  constructor(
    private readonly connection: Connection,
    private readonly engine: BehaviourEngine | null,
    private readonly source: SignalSource | null = null,
    private readonly around: AroundRequest | null = null,
    private readonly trace: TraceContext | null = null,
    private readonly state: ClientState | null = null,
    private readonly replay: SessionReplay | null = null,
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
    this.engine?.sent(method, params);
    const { replay } = this;
    if (replay?.delays(method) === true) return replay.send(params, (name, sent) => this.connection.notify(name, this.traced(sent)));
    replay?.record(method, params);
    return this.connection.notify(method, this.traced(params));
  }

  /** This link, sending every request with `signal` too (a handler's nested requests), each
   * through `around` when given (a foreground work's), and every request and notification with
   * the trace context of `handled`, the params of the request being handled. */
  within(source: SignalSource, around: AroundRequest | null = null, handled: unknown = undefined): PeerLink {
    return new PeerLink(this.connection, this.engine, source, around, traceContextOf(handled), this.state, this.replay);
  }

  private traced(params: unknown): unknown {
    return this.trace === null ? params : withTraceContext(params, this.trace);
  }
}

type Handler = (this: object, ...args: unknown[]) => Promise<unknown>;

/** The shape of a generated role module's wiring (`connectAgent` fills it in). */
export interface RoleWiring<P> {
  readonly routes: Routes;
  /** The typed handle on the other side (`ClientPeer`) over a link. */
  readonly peer: (link: PeerLink) => P;
  /** The context property that holds that handle (`client`). */
  readonly peerKey: string;
  /** The edition's behaviour; this side's turn rule is its entry of `turnRules`. */
  readonly behaviour: Behaviour;
  /** Methods the SDK answers itself from what the handlers object holds (the agent's
   * `sessionStore` answers `session/list`) when the user wrote no handler: advertised in
   * `initialize` like a handled method. */
  readonly provided?: ReadonlyMap<string, Provided>;
  /** The client's state table (`STATE_TABLE`): the connection keeps the state its messages leave. */
  readonly stateTable?: StateTable;
  /** The store an agent's sessions are recorded in and `session/load` and `session/resume`
   * answered from as the edition's rules say (session_replay.ts), from the handlers object. */
  readonly sessionStore?: (handlers: object) => SessionStore | undefined;
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

/** The side `handlers` serves under `wiring`, as the behaviour engine reads it. */
function servedSide<P>(handlers: object, wiring: RoleWiring<P>, replay: SessionReplay | null): ServedSide {
  const { requests, notifications } = wiring.routes;
  return {
    requests: requests.keys(),
    receives: (method) => notifications.has(method),
    // A request it answers (a handler, or the SDK from what the handlers hold), a notification it
    // receives (the SDK acts on the cancel; any other is handled or ignored, as the protocol lets it).
    serves: (method) => {
      if (notifications.has(method)) return true;
      const route = requests.get(method);
      if (route !== undefined && handlerOf(handlers, route.handler) !== undefined) return true;
      if (route !== undefined && replay?.answers(method) === true) return true;
      return providedOf(handlers, wiring, method) !== undefined;
    },
  };
}

function handlerOf(handlers: object, name: string): Handler | undefined {
  const handler = (handlers as Record<string, unknown>)[name];
  return typeof handler === "function" ? (handler as Handler) : undefined;
}

function providedOf<P>(handlers: object, wiring: RoleWiring<P>, method: string): ((params: unknown) => Promise<unknown>) | undefined {
  return wiring.provided?.get(method)?.(handlers);
}

class RoleRouter<P> implements Router {
  private readonly notificationContexts = new Map<string, HandlerContext>();

  constructor(
    private readonly handlers: object,
    private readonly wiring: RoleWiring<P>,
    private readonly connection: Connection,
    private readonly link: PeerLink,
    private readonly engine: BehaviourEngine,
    private readonly state: ClientState | null = null,
    private readonly replay: SessionReplay | null = null,
  ) {}

  /** One path for every request: routed, its params checked, then run by the behaviour engine
   * (which runs the call as is unless a rule owns the method). A request nothing answers is
   * -32601 before its params are looked at. */
  async request(request: IncomingRequest): Promise<unknown> {
    const { method } = request;
    const route = this.wiring.routes.requests.get(method);
    if (route === undefined) {
      const extension = this.handler("extensionRequest");
      if (method.startsWith("_") && extension !== undefined) {
        return extension.call(this.handlers, method, request.params, this.context(request.id, method, request, null, request.params));
      }
      throw RequestError.methodNotFound(method);
    }
    const { engine } = this;
    const handler = this.handler(route.handler);
    const provided = handler === undefined ? (providedOf(this.handlers, this.wiring, method) ?? this.fromStore(method)) : undefined;
    if (handler === undefined && provided === undefined && !engine.answers(method)) throw RequestError.methodNotFound(method);
    if (method === engine.behaviour.negotiation.method) engine.checkVersion(request.params);
    const params = route.params(request.params);
    let call: Call | undefined;
    if (handler !== undefined) {
      if (this.state?.methods.has(method) === true) this.state.feed({ method, params: request.params });
      call = (source, around, work) => handler.call(this.handlers, params, this.context(request.id, method, source, around, request.params, work));
      const { replay } = this;
      if (replay?.commits(method) === true) {
        const run = call;
        call = async (source, around, work) => {
          const result = await run(source, around, work);
          await replay.settled(); // the work's updates are in the store before its idle update
          return result;
        };
      }
    } else if (provided !== undefined) {
      call = () => provided(params);
    }
    const result = await engine.request(method, params, request, call);
    await this.replay?.answered(method, request.params, result);
    return result;
  }

  /** `session/load` or `session/resume` answered from the agent's store, when it keeps one. */
  private fromStore(method: string): ((params: unknown) => Promise<unknown>) | undefined {
    const { replay, connection } = this;
    if (replay === null || !replay.answers(method)) return undefined;
    return (params) => replay.answer(method, params, (name, sent) => connection.notify(name, sent));
  }

  received(method: string, params: unknown): void {
    this.engine.received(method, params);
  }

  async notification(method: string, params: unknown): Promise<void> {
    const route = this.wiring.routes.notifications.get(method);
    if (route !== undefined) {
      const decoded = route.params(params);
      if (this.state?.methods.has(method) === true) this.state.feed({ method, params });
      this.engine.observe(method, decoded);
      const handler = this.handler(route.handler);
      if (handler !== undefined) await handler.call(this.handlers, decoded, this.notificationContext(method));
      return;
    }
    const extension = this.handler("extensionNotification");
    if (method.startsWith("_") && extension !== undefined) {
      await extension.call(this.handlers, method, params, this.context(null, method, this.connection));
    }
  }

  cancelledResult(reason: unknown, request: IncomingRequest): unknown {
    return this.engine.cancelledResult(reason, request);
  }

  private handler(name: string): Handler | undefined {
    return handlerOf(this.handlers, name);
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
   * follows everything its peer sends); `work`: a foreground work's session and message id. */
  private context(
    requestId: RequestId,
    method: string,
    source: SignalSource,
    around: AroundRequest | null = null,
    handled: unknown = undefined,
    work: WorkScope | undefined = undefined,
  ): HandlerContext {
    const peer = this.wiring.peer(this.link.within(source, around, handled));
    const context = new Context(requestId, method, source, this.wiring.peerKey, peer);
    // Object.assign, not a spread: the context's `signal` is a getter a spread would not copy.
    return work === undefined ? context : Object.assign(context, work);
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
    const state = wiring.stateTable === undefined ? null : new ClientState(wiring.stateTable, problem);
    let made = null as BehaviourEngine | null;
    const replay = sessionReplay(wiring.sessionStore?.(handlers), wiring.behaviour);
    const router = (connection: Connection): Router => {
      const engine = new BehaviourEngine(wiring.behaviour, servedSide(handlers, wiring, replay), connection, problem);
      const link = new PeerLink(connection, engine, null, null, null, state, replay);
      engine.bind(link, state);
      if (replay !== null) replay.stateOf = (sessionId) => engine.currentState(sessionId);
      made = engine;
      return new RoleRouter(handlers, wiring, connection, link, engine, state, replay);
    };
    if (transport instanceof Switchboard) {
      this.connection = transport.connection;
      transport.use(router(this.connection));
    } else {
      this.connection = new Connection(transport, router, options);
    }
    this.views = made === null ? null : made.views;
    this.state = state;
    this.peer = wiring.peer(new PeerLink(this.connection, made, null, null, null, state, replay));
  }

  /** Resolves with the reason once the connection is closed (by either side). */
  get closed(): Promise<string> {
    return this.connection.closed;
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
