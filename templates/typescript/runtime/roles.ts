/**
 * What the generated role modules (`agent.ts`, `client.ts`) are built from: a router that decodes
 * params and calls the user's handler by name, typed peers' link to the connection, and ACP's
 * feature-level cancellation (`session/cancel`). Layer: typed layer (it meets the dispatcher
 * through `Router` and `Connection`'s public methods only).
 *
 * Cancellation is ambient: a handler's context carries the request's `signal`, and the peer
 * handle in that context sends every nested request with it, so cancelling a request cancels
 * the requests its handler made (ACP cancellation.mdx: "MAY cancel the corresponding request
 * activity and all nested activities related to that request").
 */

import {
  Connection,
  type ConnectionOptions,
  type IncomingRequest,
  type RequestOptions,
  type Router,
} from "./connection.js";
import { any, type Decoder } from "./decoding.js";
import { RequestError, type RequestId } from "./errors.js";
import type { Transport } from "./transport.js";

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

/** A typed peer's way to the connection; bound to a handler's signal inside a handler. */
export class PeerLink {
  constructor(
    private readonly connection: Connection,
    private readonly turnRule: TurnRule | null,
    private readonly signal: AbortSignal | null = null,
  ) {}

  request(method: string, params: unknown, decode: Decoder = any, options: RequestOptions = {}): Promise<unknown> {
    const own = this.signal;
    if (own === null) return this.connection.request(method, params, decode, options);
    const given = options.signal;
    const signal = given == null ? own : AbortSignal.any([own, given]);
    return this.connection.request(method, params, decode, { ...options, signal });
  }

  notify(method: string, params: unknown): Promise<void> {
    const rule = this.turnRule;
    if (rule !== null && !rule.received && method === rule.cancel) {
      // prompt-turn.mdx: the Client "MUST respond to all pending `session/request_permission`
      // requests with the `cancelled` outcome".
      cancelTurn(this.connection, rule, params);
    }
    return this.connection.notify(method, params);
  }

  /** This link, sending every request with `signal` too (a handler's nested requests). */
  within(signal: AbortSignal): PeerLink {
    return new PeerLink(this.connection, this.turnRule, signal);
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
}

class RoleRouter<P> implements Router {
  private readonly notificationContexts = new Map<string, HandlerContext>();

  constructor(
    private readonly handlers: object,
    private readonly wiring: RoleWiring<P>,
    private readonly connection: Connection,
    private readonly link: PeerLink,
  ) {}

  async request(request: IncomingRequest): Promise<unknown> {
    const route = this.wiring.routes.requests.get(request.method);
    const context = this.context(request.id, request.method, request.signal);
    if (route !== undefined) {
      const handler = this.handler(route.handler);
      if (handler === undefined) throw RequestError.methodNotFound(request.method);
      return handler.call(this.handlers, route.params(request.params), context);
    }
    const extension = this.handler("extensionRequest");
    if (request.method.startsWith("_") && extension !== undefined) {
      return extension.call(this.handlers, request.method, request.params, context);
    }
    throw RequestError.methodNotFound(request.method);
  }

  received(method: string, params: unknown): void {
    const rule = this.wiring.turnRule;
    if (rule !== null && rule.received && method === rule.cancel) cancelTurn(this.connection, rule, params);
  }

  async notification(method: string, params: unknown): Promise<void> {
    const route = this.wiring.routes.notifications.get(method);
    if (route !== undefined) {
      const handler = this.handler(route.handler);
      if (handler !== undefined) await handler.call(this.handlers, route.params(params), this.notificationContext(method));
      return;
    }
    const extension = this.handler("extensionNotification");
    if (method.startsWith("_") && extension !== undefined) {
      await extension.call(this.handlers, method, params, this.context(null, method, this.connection.signal));
    }
  }

  cancelledResult(reason: unknown): unknown {
    return reason instanceof TurnCancelled ? reason.result : undefined;
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
      context = this.context(null, method, this.connection.signal);
      this.notificationContexts.set(method, context);
    }
    return context;
  }

  private context(requestId: RequestId, method: string, signal: AbortSignal): HandlerContext {
    const peer = this.wiring.peer(this.link.within(signal));
    return { requestId, method, signal, [this.wiring.peerKey]: peer };
  }
}

/** A connection serving one side's handlers; `peer` is the other side as a typed handle. */
export class RoleConnection<P> {
  readonly connection: Connection;
  readonly peer: P;

  constructor(handlers: object, transport: Transport, wiring: RoleWiring<P>, options: ConnectionOptions = {}) {
    this.connection = new Connection(
      transport,
      (connection) => new RoleRouter(handlers, wiring, connection, new PeerLink(connection, wiring.turnRule)),
      options,
    );
    this.peer = wiring.peer(new PeerLink(this.connection, wiring.turnRule));
  }

  /** Resolves with the reason once the connection is closed (by either side). */
  get closed(): Promise<string> {
    return this.connection.closed;
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
