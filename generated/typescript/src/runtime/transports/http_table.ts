// Copied by acp-codegen from templates/typescript/runtime/transports/http_table.ts: edit it there, then run:
//   make generate
/**
 * The connections of the remote transport's server: opened, found by id, ended when abandoned.
 * Layer: transport. `AcpHttpServer` (http_server.ts) routes each request; this table holds what it
 * routes to. The same table as the Python runtime's `transports/http_table.py`. Opening a
 * connection starts its ACP connection (`connect(transport)`) on a fresh `HttpConnection` (256
 * random bits, http_policy.ts), refused 429 past `maxConnections`; an HTTP connection nobody has
 * used for `idleTimeout` seconds is ended (abandoned); `close()` ends them all. The RFD
 * "Streamable HTTP & WebSocket Transport": "No Acp-Connection-Id? → 400;  Unknown
 * Acp-Connection-Id? → 404", and for a WebSocket "On disconnect, the server cleans up the
 * connection" (its transport is closed whatever happens to its agent).
 */

import { HttpConnection, SessionOwners } from "./http_connection.js";
import { newConnectionId, type ServerPolicy } from "./http_policy.js";
import { Refused } from "./http_routing.js";
import type { Transport } from "./transport.js";

/** What `connect` returns: the typed layer's `AgentConnection`, or a `Connection`. */
export interface Served {
  readonly closed: Promise<unknown>;
  close(): Promise<void>;
}

/** The server's open connections by `Acp-Connection-Id`, each served until it closes. */
export class ConnectionTable {
  private readonly connections = new Map<string, HttpConnection>();
  private readonly owners = new SessionOwners();
  private readonly running = new Set<Promise<void>>();
  private reaper: NodeJS.Timeout | null = null;

  constructor(
    private readonly connect: (transport: Transport) => Served,
    private readonly policy: ServerPolicy,
  ) {}

  get size(): number {
    return this.connections.size;
  }

  /** A new connection with its agent started, or 429 past the limit (500: no agent). */
  open(websocket: boolean): HttpConnection {
    if (this.connections.size >= this.policy.maxConnections) throw new Refused(429, "Too many connections");
    const connection = new HttpConnection(newConnectionId(), this.policy, this.owners, websocket, (closed) => {
      if (this.connections.get(closed.id) === closed) this.connections.delete(closed.id);
    });
    let served: Served;
    try {
      served = this.connect(connection);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.policy.problem(`the agent could not be started: ${reason}`);
      throw new Refused(500, `The agent could not be started: ${reason}`);
    }
    this.connections.set(connection.id, connection);
    const run = served.closed
      .catch((error: unknown) => this.policy.problem(`connection ${connection.id.slice(0, 8)} failed: ${String(error)}`))
      .then(() => connection.close());
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    this.reaper ??= setInterval(() => this.endIdle(), Math.min(this.policy.idleTimeout / 4, 30) * 1000).unref();
    return connection;
  }

  /** The open HTTP connection of an `Acp-Connection-Id` header (400 none, 404 unknown). */
  find(id: string | string[] | undefined): HttpConnection {
    if (typeof id !== "string") throw new Refused(400, "Missing Acp-Connection-Id");
    const connection = this.connections.get(id);
    if (connection === undefined || connection.isClosed || connection.websocket) throw new Refused(404, "Unknown Acp-Connection-Id");
    return connection;
  }

  /** End every connection (its agent sees the client leave) and wait for them (10 s at most). */
  async close(): Promise<void> {
    for (const connection of this.connections.values()) connection.endInput();
    if (this.reaper !== null) clearInterval(this.reaper);
    this.reaper = null;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)));
    await Promise.race([Promise.all(this.running), late]);
    clearTimeout(timer);
  }

  /** Ends HTTP connections nobody has used for `idleTimeout` seconds (abandoned). */
  private endIdle(): void {
    const before = Date.now() - this.policy.idleTimeout * 1000;
    for (const connection of this.connections.values()) {
      if (!connection.websocket && connection.idle() && connection.lastActive < before) connection.endInput();
    }
    if (this.connections.size === 0 && this.reaper !== null) {
      clearInterval(this.reaper);
      this.reaper = null;
    }
  }
}
