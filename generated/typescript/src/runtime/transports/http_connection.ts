// Copied by acp-codegen from templates/typescript/runtime/transports/http_connection.ts: edit it there, then run:
//   make generate
/**
 * One connection of the HTTP server: the `Transport` its ACP `Connection` runs on. Layer:
 * transport. As the Python runtime's `transports/http_connection.py`: what the client POSTs (or
 * sends over its WebSocket) waits in an `Inbox` for the connection; what the connection writes is
 * routed, one message at a time, to the `Outbox` of the stream the RFD names (http_routing.ts):
 * the connection-scoped stream, a session-scoped stream, or, over a WebSocket, the socket ("All
 * messages are WebSocket text frames containing JSON-RPC"). The `Connection` above is the one
 * stdio uses, so ids, cancellation (`$/cancel_request`, the cascade) and flow control behave
 * exactly as there.
 *
 * Sessions belong to one connection at a time (`SessionOwners`): a session handed out on, or named
 * by, a connection is that connection's until it ends; another connection naming it is answered
 * 404, so no stream and no request crosses connections.
 */

import type { OversizedFrame, Transport } from "./transport.js";
import type { ServerPolicy } from "./http_policy.js";
import { Refused, answerRoute, clientMessageRoute, envelope, type Envelope, type Route } from "./http_routing.js";
import { Backlog, Inbox, Outbox } from "./queues.js";

/** Which connection each live session belongs to (shared by a server's connections). */
export class SessionOwners {
  private readonly owners = new Map<string, string>();

  /** Makes `session` this connection's, unless it is another's (false). */
  claim(session: string, connectionId: string): boolean {
    const owner = this.owners.get(session);
    if (owner === undefined) this.owners.set(session, connectionId);
    return owner === undefined || owner === connectionId;
  }

  release(sessions: Iterable<string>, connectionId: string): void {
    for (const session of sessions) {
      if (this.owners.get(session) === connectionId) this.owners.delete(session);
    }
  }
}

/** The transport of one ACP connection served over HTTP (SSE streams) or a WebSocket. */
export class HttpConnection implements Transport {
  /** The connection-scoped stream; over a WebSocket, every message. */
  readonly stream: Outbox;
  readonly sessions = new Set<string>();
  lastActive = Date.now();
  private readonly inbox: Inbox;
  private readonly backlog = new Backlog();
  private readonly sessionStreams = new Map<string, Outbox>();
  /** The client's requests: where each answer goes. */
  private readonly answerRoutes = new Map<string, Route>();
  /** Our requests: the session of each answer. */
  private readonly clientRoutes = new Map<string, Route>();
  private initialize: { key: string; resolve: (answer: string | null) => void } | null = null;
  private closed = false;
  private room: Promise<void> | undefined;

  constructor(
    readonly id: string,
    private readonly policy: ServerPolicy,
    private readonly owners: SessionOwners,
    readonly websocket: boolean,
    private readonly onClosed: (connection: HttpConnection) => void,
  ) {
    this.inbox = new Inbox(policy.maxBufferedBytes);
    this.stream = new Outbox(this.backlog);
  }

  // -- the Transport protocol (the Connection's side) ---------------------------------------

  start(
    onFrame: (frame: string) => void,
    onClose: (reason: string) => void,
    _onOversized?: (frame: OversizedFrame) => void,
  ): void {
    // Over HTTP a message over the limit is refused 413 before it gets here.
    this.inbox.start({ onFrame, onEnd: () => onClose("the client left") });
  }

  write(frame: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.routeOut(frame);
    if (this.backlog.size <= this.policy.maxBufferedBytes) return undefined;
    this.room ??= this.drain().finally(() => (this.room = undefined));
    return this.room;
  }

  pause(): void {
    this.inbox.pause();
  }

  resume(): void {
    this.inbox.resume();
  }

  /** The Connection is done: every stream ends (after what is queued), the sessions are free. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inbox.end();
    this.stream.finish();
    for (const outbox of this.sessionStreams.values()) outbox.finish();
    this.owners.release(this.sessions, this.id);
    this.initialize?.resolve(null);
    this.initialize = null;
    this.onClosed(this);
  }

  /** Waits while the client has more than `maxBufferedBytes` to read; a client that reads nothing
   * for `outputStallTimeout` seconds is gone (the connection ends). */
  private async drain(): Promise<void> {
    while (!this.closed && this.backlog.size > this.policy.maxBufferedBytes) {
      if (!(await this.backlog.progress(this.policy.outputStallTimeout * 1000))) {
        this.policy.problem(`connection ${this.id.slice(0, 8)}: the client read nothing for ${this.policy.outputStallTimeout} s; ending it`);
        this.endInput();
        return;
      }
    }
  }

  // -- the server's side ---------------------------------------------------------------------

  get isClosed(): boolean {
    return this.closed;
  }

  touch(): void {
    this.lastActive = Date.now();
  }

  /** Nobody reads any stream of this connection. */
  idle(): boolean {
    if (this.stream.hasReceiver) return false;
    for (const outbox of this.sessionStreams.values()) if (outbox.hasReceiver) return false;
    return true;
  }

  /** The client is gone (DELETE, idle, a closed WebSocket): the Connection sees the end of its
   * input and closes as after EOF on stdio (pending calls fail at once). */
  endInput(): void {
    this.inbox.end();
  }

  /** The answer to `initialize` (id key `key`), which goes in the POST's response; null when the
   * connection closed first. */
  expectInitialize(key: string): Promise<string | null> {
    return new Promise((resolve) => (this.initialize = { key, resolve }));
  }

  /** A WebSocket message, as it came; false past the buffered bytes. */
  put(frame: string): boolean {
    this.touch();
    return this.inbox.put(frame);
  }

  /** A POSTed message for the agent; `Refused` (400, 404, 429) when it cannot be taken. */
  accept(message: Envelope, text: string, headerSession: string | null): void {
    this.touch();
    const key = message.key;
    if (message.kind === "response") {
      if (key !== null && this.clientRoutes.has(key)) {
        const route = this.clientRoutes.get(key) ?? null;
        if (route !== null && headerSession !== route) throw new Refused(400, "Acp-Session-Id does not match the request answered");
        this.clientRoutes.delete(key);
      }
    } else {
      const route = clientMessageRoute(message, headerSession);
      if (route !== null) this.claim(route);
      if (key !== null && message.kind === "request") this.answerRoutes.set(key, answerRoute(message, route));
    }
    if (!this.inbox.put(text)) {
      if (key !== null && message.kind === "request") this.answerRoutes.delete(key);
      throw new Refused(429, "Too many messages waiting for the agent");
    }
  }

  /** Makes `session` this connection's: `Refused` 404 when it is another connection's, 429 past
   * `maxSessions`. */
  claim(session: string): void {
    if (this.sessions.has(session)) return;
    if (this.sessions.size >= this.policy.maxSessions) throw new Refused(429, "Too many sessions on this connection");
    if (!this.owners.claim(session, this.id)) throw new Refused(404, "Unknown Acp-Session-Id");
    this.sessions.add(session);
  }

  /** The session-scoped stream of a session of this connection (made on first use). */
  sessionStream(session: string): Outbox {
    let outbox = this.sessionStreams.get(session);
    if (outbox === undefined) {
      outbox = new Outbox(this.backlog);
      this.sessionStreams.set(session, outbox);
      if (this.closed) outbox.finish();
    }
    return outbox;
  }

  // -- routing the agent's messages ----------------------------------------------------------

  private routeOut(frame: string): void {
    const message = envelope(frame);
    const key = message.key;
    let route: Route = null;
    if (message.kind === "response") {
      const initialize = this.initialize;
      if (initialize !== null && key === initialize.key) {
        this.initialize = null;
        initialize.resolve(frame);
        return;
      }
      if (key !== null) {
        route = this.answerRoutes.get(key) ?? null;
        this.answerRoutes.delete(key);
      }
      if (message.session !== null) this.adopt(message.session);
    } else if (message.kind !== "other") {
      route = message.session;
      if (route !== null && !this.adopt(route)) route = null;
      if (key !== null && message.kind === "request") this.clientRoutes.set(key, route);
    }
    if (route === null || this.websocket) this.stream.put(frame);
    else this.sessionStream(route).put(frame);
  }

  /** A session the agent names on this connection becomes its own, if it can. */
  private adopt(session: string): boolean {
    try {
      this.claim(session);
      return true;
    } catch (error) {
      this.policy.problem(`connection ${this.id.slice(0, 8)}: session not routed apart: ${(error as Error).message}`);
      return false;
    }
  }
}
