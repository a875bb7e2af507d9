// Copied by acp-codegen from templates/typescript/runtime/reconnect.ts: edit it there, then run:
//   make generate
/**
 * A remote agent's connection that comes back when lost, its sessions resumed or loaded: the
 * TypeScript side of the Python runtime's reconnect.py (docs/scale.md).
 * Layer: typed layer (client side of a remote agent; opt-in: `connectRemoteAgent(client, url,
 * { reconnect: {} })` in each edition's client module).
 *
 * When the transport ends without our asking: every request in flight fails at once with
 * `ConnectionClosed` (never dropped silently); a new transport is opened to the same URL, at
 * most `attempts` times, the n-th after `min(firstDelayMs * factor ** (n - 1), maxDelayMs)`,
 * each attempt one log line (`reconnect 2/5 to URL: …`); on it `initialize` is sent again with
 * the params sent first, then `session/resume` (the agent advertises
 * `sessionCapabilities.resume`) or else `session/load` (`loadSession`) of every session the
 * client opened, loaded or resumed. The connection object the caller holds then serves the new
 * connection (read `connection.agent` each time) and `await connection.reconnected()` resolves;
 * after the last failed attempt it rejects with `ConnectionClosed`.
 */

import type { Connection } from "./connection.js";
import type { Decoder } from "./decoding.js";
import { ConnectionClosed } from "./errors.js";
import type { RequestOptions } from "./outgoing.js";
import type { RoleConnection } from "./roles.js";
import type { Transport } from "./transports/transport.js";

export interface ReconnectOptions {
  /** Attempts at most (5). */
  readonly attempts?: number;
  /** Before the first attempt, in milliseconds (100); each next one waits `factor` (2) times
   * longer, at most `maxDelayMs` (5,000). */
  readonly firstDelayMs?: number;
  readonly factor?: number;
  readonly maxDelayMs?: number;
  /** What one attempt may take: connect, initialize, take the sessions over (10,000 ms). */
  readonly attemptTimeoutMs?: number;
  /** Where the one line per attempt goes (`console.warn`). */
  readonly log?: (line: string) => void;
}

const TRACKED = new Set(["initialize", "session/new", "session/load", "session/resume"]);
const raw: Decoder = (value) => value;

type Request = (method: string, params: unknown, decode: Decoder, options?: RequestOptions) => Promise<unknown>;

/** The delay before attempt `attempt` (from 1), in milliseconds. */
export function reconnectDelay(options: ReconnectOptions, attempt: number): number {
  const first = options.firstDelayMs ?? 100;
  return Math.min(first * (options.factor ?? 2) ** (attempt - 1), options.maxDelayMs ?? 5000);
}

/** Keeps a client's `RoleConnection` connected: see the module. */
export class Reconnection {
  /** The sessions taken over on a new connection: id → `cwd`, `mcpServers`. */
  readonly sessions = new Map<string, { cwd: unknown; mcpServers: unknown }>();
  private initializeParams: unknown = undefined;
  private down = false;
  private closing = false;
  private settled: Promise<void> = Promise.resolve();
  private gaveUp = false;
  private readonly log: (line: string) => void;
  private readonly attempts: number;

  constructor(
    readonly url: string,
    private readonly options: ReconnectOptions,
    private readonly open: () => Promise<Transport>,
    private readonly connect: (transport: Transport) => RoleConnection<unknown>,
    private readonly facade: RoleConnection<unknown>,
  ) {
    this.attempts = options.attempts ?? 5;
    if (this.attempts < 1) throw new RangeError("reconnect: attempts >= 1");
    this.log = options.log ?? ((line) => console.warn(line));
    this.adopt(facade);
  }

  /** The caller is done: a loss from now on is not retried. */
  close(): void {
    this.closing = true;
  }

  /** Resolves once connected (at once when nothing was lost); rejects with `ConnectionClosed`
   * when the attempts are spent. */
  async reconnected(): Promise<void> {
    await this.settled;
    if (this.gaveUp) throw new ConnectionClosed(`reconnecting to ${this.url} failed ${this.attempts} times`);
  }

  private adopt(fresh: RoleConnection<unknown>): void {
    type Parts = { connection: Connection; peer: unknown; state: unknown; views: unknown };
    const facade = this.facade as unknown as Parts;
    const parts = fresh as unknown as Parts;
    facade.connection = parts.connection;
    facade.peer = parts.peer;
    facade.state = parts.state;
    facade.views = parts.views;
    this.down = false;
    this.track(fresh.connection);
    void fresh.connection.closed.then(() => this.lost(fresh.connection));
  }

  /** Notes what a new connection must ask again, and a loss the moment a caller hears of it. */
  private track(connection: Connection): void {
    const send: Request = connection.request.bind(connection);
    const tracked: Request = (method, params, decode, options) => {
      const sent = send(method, params, decode, options).catch((error: unknown) => {
        if (error instanceof ConnectionClosed) this.lost(connection);
        throw error;
      });
      if (!TRACKED.has(method)) return sent;
      return sent.then((answer) => {
        this.note(method, params, answer);
        return answer;
      });
    };
    (connection as unknown as { request: Request }).request = tracked;
  }

  private note(method: string, params: unknown, answer: unknown): void {
    const given = (params ?? {}) as Record<string, unknown>;
    if (method === "initialize") {
      this.initializeParams = params;
      return;
    }
    const sessionId = given.sessionId ?? (answer as Record<string, unknown> | null)?.sessionId;
    if (typeof sessionId === "string") {
      this.sessions.set(sessionId, { cwd: given.cwd ?? "", mcpServers: given.mcpServers ?? [] });
    }
  }

  private lost(connection: Connection): void {
    if (this.closing || this.down || connection !== this.facade.connection) return;
    this.down = true;
    this.settled = this.retry();
  }

  private async retry(): Promise<void> {
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, reconnectDelay(this.options, attempt)));
      if (this.closing) return;
      let fresh: RoleConnection<unknown>;
      let how: string;
      try {
        [fresh, how] = await withTimeout(this.attempt(), this.options.attemptTimeoutMs ?? 10_000);
      } catch (error) {
        const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
        this.log(`reconnect ${attempt}/${this.attempts} to ${this.url}: failed: ${reason}`);
        continue;
      }
      this.adopt(fresh);
      this.log(`reconnect ${attempt}/${this.attempts} to ${this.url}: connected, ${this.sessions.size} session(s) ${how}`);
      return;
    }
    this.log(`reconnect to ${this.url}: gave up after ${this.attempts} attempts`);
    this.gaveUp = true;
  }

  /** A new connection, initialized, with every session taken over; closed on failure. */
  private async attempt(): Promise<[RoleConnection<unknown>, string]> {
    const fresh = this.connect(await this.open());
    try {
      const answer = (await fresh.connection.request("initialize", this.initializeParams, raw)) as {
        agentCapabilities?: { loadSession?: boolean; sessionCapabilities?: Record<string, unknown> };
      } | null;
      const capabilities = answer?.agentCapabilities ?? {};
      let method = "";
      let how = "(none open)";
      if (capabilities.sessionCapabilities !== undefined && "resume" in capabilities.sessionCapabilities) {
        [method, how] = ["session/resume", "resumed"];
      } else if (capabilities.loadSession === true) {
        [method, how] = ["session/load", "loaded"];
      } else if (this.sessions.size > 0) {
        throw new ConnectionClosed("the agent advertises neither session/resume nor load");
      }
      for (const [sessionId, params] of this.sessions) {
        await fresh.connection.request(method, { sessionId, ...params }, raw);
      }
      return [fresh, how];
    } catch (error) {
      await fresh.close();
      throw error;
    }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
