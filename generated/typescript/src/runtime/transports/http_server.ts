// Copied by acp-codegen from templates/typescript/runtime/transports/http_server.ts: edit it there, then run:
//   make generate
/**
 * The server of ACP's remote transport: one agent per connection at `/acp`, as a node `http`
 * request handler and upgrade handler. Layer: transport. The same server as the Python runtime's
 * `transports/http_server.py`. The RFD "Streamable HTTP & WebSocket Transport", "Unified Endpoint
 * Routing":
 *
 *     GET /acp
 *       ├── Has Upgrade: websocket? → WebSocket handler
 *       └── No → SSE stream handler (400 no Acp-Connection-Id, 404 unknown, 404 unknown
 *           Acp-Session-Id; with Acp-Session-Id: the session-scoped stream, else the
 *           connection-scoped one)
 *     POST /acp
 *       ├── Initialize request (no Acp-Connection-Id)? → Create connection, return 200 with JSON
 *       ├── No Acp-Connection-Id? → 400;  Unknown Acp-Connection-Id? → 404
 *       ├── Session-scoped request missing Acp-Session-Id? → 400
 *       └── … → Forward to agent, return 202 Accepted
 *     DELETE /acp → Terminate the connection, 202 (400 without Acp-Connection-Id)
 *
 * "POST `Content-Type` MUST be `application/json` (415 otherwise)", "GET `Accept` MUST include
 * `text/event-stream` (406 otherwise)", "Batch JSON-RPC requests return 501". Each connection is
 * its own ACP connection (`connect(transport)`: an agent per connection, or one shared) on an
 * `HttpConnection` transport, kept in the server's `ConnectionTable` (http_table.ts: opening,
 * finding, ending the idle ones). The checks of http_policy.ts come first (403, 401), then the limits.
 * WebSockets need a `ws` `WebSocketServer` (`{ noServer: true }`; the optional peer dependency):
 * node has a WebSocket client from 22 on, but no server.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { HttpConnection } from "./http_connection.js";
import { ServerPolicy, type HttpServerOptions } from "./http_policy.js";
import { CONNECTION_ID, EVENT_STREAM, JSON_TYPE, MAX_ID_LENGTH, Refused, SESSION_ID, envelope } from "./http_routing.js";
import { ConnectionTable, type Served } from "./http_table.js";
import type { Outbox, Receiver } from "./queues.js";
import type { Transport } from "./transport.js";

export type { Served } from "./http_table.js"; // importable from here, as always

/** A server-side WebSocket as `ws` 8 makes them (only what the server uses). */
export interface ServerWebSocket {
  readonly bufferedAmount: number;
  send(data: string, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  on(event: "message", listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** `ws`'s `WebSocketServer` made with `{ noServer: true }` (only what the server uses). */
export interface WebSocketUpgrader {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, done: (socket: ServerWebSocket) => void): void;
  on(event: "headers", listener: (headers: string[], request: IncomingMessage) => void): unknown;
  off(event: "headers", listener: (headers: string[], request: IncomingMessage) => void): unknown;
}

export interface AcpHttpServerOptions extends HttpServerOptions {
  /** Serves WebSocket upgrades; without one, an upgrade is refused 501. `listen()` makes one. */
  readonly webSocketServer?: WebSocketUpgrader;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
const NOT_A_MESSAGE =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":{"details":"a JSON-RPC message is an object"}}}';
const SSE_HEADERS = {
  "content-type": EVENT_STREAM,
  "cache-control": "no-cache",
  "x-accel-buffering": "no", // nginx: pass events on as they come
};

/** ACP over Streamable HTTP and WebSocket, one `connect(transport)` per connection:
 * `handleRequest` for node's "request" event, `handleUpgrade` for its "upgrade" event. */
export class AcpHttpServer {
  readonly policy: ServerPolicy;
  private readonly table: ConnectionTable;
  private readonly webSocketServer: WebSocketUpgrader | undefined;

  constructor(connect: (transport: Transport) => Served, options: AcpHttpServerOptions = {}) {
    this.policy = new ServerPolicy(options);
    this.table = new ConnectionTable(connect, this.policy);
    this.webSocketServer = options.webSocketServer;
  }

  get connectionCount(): number {
    return this.table.size;
  }

  /** End every connection (its agent sees the client leave) and wait for them (10 s at most). */
  close(): Promise<void> {
    return this.table.close();
  }

  // -- HTTP ----------------------------------------------------------------------------------

  readonly handleRequest = (request: IncomingMessage, response: ServerResponse): void => {
    this.http(request, response).catch((error: unknown) => {
      if (error instanceof Refused) refuse(response, error);
      else {
        this.policy.problem(`request failed: ${error instanceof Error ? error.message : String(error)}`);
        refuse(response, new Refused(500, "Internal Server Error"));
      }
    });
  };

  private async http(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.check(request);
    switch (request.method) {
      case "POST":
        return this.post(request, response);
      case "GET":
        return this.get(request, response);
      case "DELETE":
        this.connection(request).endInput();
        response.writeHead(202).end();
        return;
      default:
        throw new Refused(405, "Method Not Allowed");
    }
  }

  private check(request: IncomingMessage): void {
    const path = this.policy.path;
    const url = request.url ?? "/";
    const requested = url.split("?", 1)[0] as string;
    if (path !== null && requested.replace(/\/+$/, "") !== path.replace(/\/+$/, "")) throw new Refused(404, "Not Found");
    if (!this.policy.originAllowed(request.headers.origin)) throw new Refused(403, "Origin not allowed");
    if (!this.policy.authorized(request.headers.authorization)) throw new Refused(401, "Unauthorized");
  }

  private connection(request: IncomingMessage): HttpConnection {
    return this.table.find(request.headers[CONNECTION_ID]);
  }

  private async post(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const type = (request.headers["content-type"] ?? "").split(";", 1)[0]?.trim().toLowerCase();
    if (type !== JSON_TYPE) throw new Refused(415, "Unsupported Media Type: POST application/json");
    const body = await readBody(request, this.policy.frameLimit);
    let text: string;
    try {
      text = UTF8.decode(body);
    } catch {
      return respondJson(response, 400, PARSE_ERROR);
    }
    // One parse: the dispatcher's own reading of the message (what is not one keeps its value).
    const message = envelope(text);
    if (message.kind === "other") {
      const value = message.value;
      if (value === undefined) return respondJson(response, 400, PARSE_ERROR);
      if (Array.isArray(value)) throw new Refused(501, "JSON-RPC batches are not supported");
      if (typeof value !== "object" || value === null) return respondJson(response, 400, NOT_A_MESSAGE);
      if ((value as { method?: unknown }).method === "initialize") throw new Refused(400, "initialize needs a string or integer id");
    }
    if (message.kind === "request" && message.method === "initialize") {
      if (request.headers[CONNECTION_ID] !== undefined) throw new Refused(400, "initialize opens a connection: send it without Acp-Connection-Id");
      const [answer, connectionId] = await this.initialize(message.key as string, text);
      response.writeHead(200, { "content-type": JSON_TYPE, [CONNECTION_ID]: connectionId });
      response.end(answer);
      return;
    }
    this.connection(request).accept(message, text, sessionHeader(request));
    response.writeHead(202).end();
  }

  private async initialize(key: string, text: string): Promise<[string, string]> {
    const connection = this.table.open(false);
    const answer = connection.expectInitialize(key);
    connection.put(text);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), this.policy.initializeTimeout * 1000)));
    const outcome = await Promise.race([answer, late]);
    clearTimeout(timer);
    if (outcome === "late") {
      connection.endInput();
      throw new Refused(504, "The agent did not answer initialize in time");
    }
    if (outcome === null) throw new Refused(502, "The agent closed the connection before answering initialize");
    return [outcome, connection.id];
  }

  private async get(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!(request.headers.accept ?? "").includes(EVENT_STREAM)) throw new Refused(406, "Not Acceptable: GET Accept: text/event-stream");
    const connection = this.connection(request);
    const session = sessionHeader(request);
    let outbox: Outbox;
    if (session === null) outbox = connection.stream;
    else {
      connection.claim(session);
      outbox = connection.sessionStream(session);
    }
    this.streamEvents(connection, outbox, request, response);
  }

  /** One SSE event per message, all that is queued in one write; a comment after `keepalive`
   * seconds of silence; the end when the connection ends. */
  private streamEvents(connection: HttpConnection, outbox: Outbox, request: IncomingMessage, response: ServerResponse): void {
    let wrote = true;
    let timer: NodeJS.Timeout | null = null;
    const receiver: Receiver = {
      take(messages) {
        wrote = true;
        connection.touch();
        return response.write(messages.map(sseEvent).join(""));
      },
      end() {
        leave();
        response.end();
      },
    };
    if (!outbox.acquire(receiver)) throw new Refused(409, "This stream already has a receiver");
    const leave = (): void => {
      if (timer !== null) clearInterval(timer);
      timer = null;
      outbox.release(receiver);
      connection.touch();
    };
    response.writeHead(200, SSE_HEADERS);
    response.flushHeaders();
    response.on("drain", () => outbox.flush());
    response.on("close", leave);
    request.on("error", leave);
    timer = setInterval(() => {
      if (!wrote) response.write(":\n\n");
      wrote = false;
    }, this.policy.keepalive * 1000);
  }

  // -- WebSocket -----------------------------------------------------------------------------

  /** "A new connection is created on upgrade. The `Acp-Connection-Id` is returned in the upgrade
   * response headers"; "All messages are WebSocket text frames containing JSON-RPC. Binary frames
   * are ignored. On disconnect, the server cleans up the connection". */
  readonly handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    let connection: HttpConnection;
    try {
      this.check(request);
      if ((request.headers.upgrade ?? "").toLowerCase() !== "websocket") throw new Refused(400, "Only WebSocket upgrades are served");
      if (this.webSocketServer === undefined) throw new Refused(501, "WebSocket is not served here (no ws WebSocketServer)");
      connection = this.table.open(true);
    } catch (error) {
      denyUpgrade(socket, error instanceof Refused ? error : new Refused(500, "Internal Server Error"));
      return;
    }
    const upgrader = this.webSocketServer;
    const addId = (headers: string[], upgraded: IncomingMessage): void => {
      if (upgraded === request) headers.push(`Acp-Connection-Id: ${connection.id}`);
    };
    upgrader.on("headers", addId);
    upgrader.handleUpgrade(request, socket, head, (webSocket) => {
      upgrader.off("headers", addId);
      this.serveWebSocket(connection, webSocket);
    });
    socket.once("close", () => {
      upgrader.off("headers", addId);
      connection.endInput();
    });
  };

  private serveWebSocket(connection: HttpConnection, webSocket: ServerWebSocket): void {
    const outbox = connection.stream;
    outbox.acquire({
      take(messages) {
        const last = messages.length - 1;
        messages.forEach((message, index) => webSocket.send(message, index === last ? () => outbox.flush() : undefined));
        return false; // ready again once the last one is written
      },
      end() {
        webSocket.close(1000);
      },
    });
    webSocket.on("message", (data, isBinary) => {
      if (isBinary) return; // "Binary frames are ignored"
      const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8");
      if (!connection.put(text)) {
        this.policy.problem(`connection ${connection.id.slice(0, 8)}: too much input waiting; closing`);
        webSocket.close(1013);
        connection.endInput();
      }
    });
    webSocket.on("close", () => connection.endInput());
    webSocket.on("error", () => connection.endInput());
  }
}

/** One SSE event; a message with line breaks (never ours) takes one `data:` line per line. */
function sseEvent(message: string): string {
  return message.includes("\n") ? `data: ${message.replace(/\r?\n/g, "\ndata: ")}\n\n` : `data: ${message}\n\n`;
}

function sessionHeader(request: IncomingMessage): string | null {
  const session = request.headers[SESSION_ID];
  if (typeof session !== "string") return null;
  if (session.length > MAX_ID_LENGTH) throw new Refused(400, `Acp-Session-Id is longer than ${MAX_ID_LENGTH}`);
  return session;
}

/** The request body, refused 413 past `limit` bytes (before reading it when it says so). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const length = Number(request.headers["content-length"] ?? NaN);
  if (length > limit) return Promise.reject(new Refused(413, `Payload Too Large: the limit is ${limit} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners("data");
        request.resume();
        reject(new Refused(413, `Payload Too Large: the limit is ${limit} bytes`));
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", () => reject(new Refused(400, "The client left before sending its body")));
  });
}

function refusalHeaders(refused: Refused): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
  if (refused.status === 401) headers["www-authenticate"] = "Bearer";
  else if (refused.status === 429) headers["retry-after"] = "1";
  else if (refused.status === 405) headers.allow = "GET, POST, DELETE";
  return headers;
}

function refuse(response: ServerResponse, refused: Refused): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(refused.status, refusalHeaders(refused));
  response.end(refused.message);
}

function respondJson(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { "content-type": JSON_TYPE });
  response.end(body);
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
};

/** Refuses an upgrade with its HTTP status, on the raw socket (no 101 was sent). */
function denyUpgrade(socket: Duplex, refused: Refused): void {
  const body = Buffer.from(refused.message, "utf8");
  const headers = Object.entries({ ...refusalHeaders(refused), "content-length": String(body.length), connection: "close" })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${refused.status} ${REASONS[refused.status] ?? "Error"}\r\n${headers}\r\n${body.toString("utf8")}`);
}
