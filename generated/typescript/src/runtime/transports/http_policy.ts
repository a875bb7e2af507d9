// Copied by acp-codegen from templates/typescript/runtime/transports/http_policy.ts: edit it there, then run:
//   make generate
/**
 * What the HTTP server accepts: its options (each limit configurable) and its checks. Layer:
 * transport. The same policy as the Python runtime's `transports/http_policy.py`; safe by default:
 *
 * - `Origin`: "Servers MUST validate the Origin header on all incoming connections to prevent DNS
 *   rebinding attacks" (MCP's Streamable HTTP, which the ACP RFD adopts): a request that carries an
 *   `Origin` outside `allowedOrigins` is refused 403. Programs that are not browsers send none.
 * - A bearer token, when one is set: `Authorization: Bearer <token>`, compared in constant time;
 *   401 otherwise.
 * - Limits: body size (the frame limit: 413), bytes buffered per connection (429 for the client's
 *   messages past it; our own writes wait), connections (429), sessions per connection (429), idle
 *   time (the connection is ended), ids longer than `MAX_ID_LENGTH` (400).
 * - Connection ids are 256 random bits from the operating system's CSPRNG.
 */

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { DEFAULT_FRAME_LIMIT } from "./framing.js";

/** The HTTP server's options; every limit has a default and can be changed. */
export interface HttpServerOptions {
  /** The endpoint ("A single `/acp` endpoint"); null serves every path. Default `/acp`. */
  readonly path?: string | null;
  /** Origins (`scheme://host[:port]`) whose browsers may connect; requests without `Origin` are
   * always accepted (they do not come from a web page). Default: none. */
  readonly allowedOrigins?: Iterable<string>;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  readonly token?: string | null;
  /** The largest message (a POST body, a WebSocket message), in bytes: 413 past it. */
  readonly frameLimit?: number;
  /** Per connection: the client's messages waiting for the agent (429 past it), and the agent's
   * waiting for the client to read them (the agent's writes wait past it). 8 MiB. */
  readonly maxBufferedBytes?: number;
  /** Seconds a connection over `maxBufferedBytes` waits for its client to read any of it before
   * it is ended (a client that stopped reading, or never opens the stream). 60. */
  readonly outputStallTimeout?: number;
  /** Connections open at once (HTTP and WebSocket): 429 past it. 1024. */
  readonly maxConnections?: number;
  /** Sessions per connection: 429 past it. 1024. */
  readonly maxSessions?: number;
  /** Seconds an HTTP connection lives with no request and no stream open (abandoned). 300. */
  readonly idleTimeout?: number;
  /** Seconds the agent has to answer `initialize` (504 after). 30. */
  readonly initializeTimeout?: number;
  /** Seconds of silence after which an SSE stream gets a comment, so proxies keep it open. 15. */
  readonly keepalive?: number;
  /** Where the server reports what it did not do (one line each); default: stderr. */
  readonly onProblem?: (message: string) => void;
}

/** The options with every default filled in and checked. */
export class ServerPolicy {
  readonly path: string | null;
  readonly allowedOrigins: ReadonlySet<string>;
  readonly frameLimit: number;
  readonly maxBufferedBytes: number;
  readonly outputStallTimeout: number;
  readonly maxConnections: number;
  readonly maxSessions: number;
  readonly idleTimeout: number;
  readonly initializeTimeout: number;
  readonly keepalive: number;
  readonly problem: (message: string) => void;
  private readonly tokenDigest: Buffer | null;

  constructor(options: HttpServerOptions = {}) {
    this.path = options.path === undefined ? "/acp" : options.path;
    this.allowedOrigins = new Set([...(options.allowedOrigins ?? [])].map(withoutSlash));
    this.frameLimit = positive("frameLimit", options.frameLimit ?? DEFAULT_FRAME_LIMIT);
    this.maxBufferedBytes = positive("maxBufferedBytes", options.maxBufferedBytes ?? 8 * 1024 * 1024);
    this.outputStallTimeout = positive("outputStallTimeout", options.outputStallTimeout ?? 60);
    this.maxConnections = positive("maxConnections", options.maxConnections ?? 1024);
    this.maxSessions = positive("maxSessions", options.maxSessions ?? 1024);
    this.idleTimeout = positive("idleTimeout", options.idleTimeout ?? 300);
    this.initializeTimeout = positive("initializeTimeout", options.initializeTimeout ?? 30);
    this.keepalive = positive("keepalive", options.keepalive ?? 15);
    this.tokenDigest = options.token == null ? null : digest(options.token);
    this.problem = options.onProblem ?? ((message) => void process.stderr.write(`acp http server: ${message}\n`));
  }

  /** No `Origin` (not a browser), or one of `allowedOrigins`. */
  originAllowed(origin: string | undefined): boolean {
    return origin === undefined || this.allowedOrigins.has(withoutSlash(origin));
  }

  /** No token set, or `Authorization: Bearer <token>` (compared in constant time: both sides are
   * hashed first, so neither the token's length nor its bytes show in the time taken). */
  authorized(authorization: string | undefined): boolean {
    if (this.tokenDigest === null) return true;
    if (authorization === undefined) return false;
    const space = authorization.indexOf(" ");
    if (space < 0 || authorization.slice(0, space).toLowerCase() !== "bearer") return false;
    return timingSafeEqual(digest(authorization.slice(space + 1).trim()), this.tokenDigest);
  }
}

/** 256 bits from the CSPRNG, URL-safe: an `Acp-Connection-Id` nobody can guess. */
export function newConnectionId(): string {
  return randomBytes(32).toString("base64url");
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function withoutSlash(origin: string): string {
  return origin.replace(/\/+$/, "");
}

function positive(name: string, value: number): number {
  if (!(value > 0)) throw new RangeError(`HttpServerOptions.${name} must be positive`);
  return value;
}
