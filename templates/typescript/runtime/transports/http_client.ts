/**
 * The client of ACP's Streamable HTTP transport: a `Transport` that POSTs and reads SSE streams.
 * Layer: transport. As the Python runtime's `transports/http_client.py`; node's `fetch` (keep-alive
 * connections) and `eventsource-parser` (the SSE parser; the optional peer dependency). The RFD's
 * client side:
 *
 * - "The `initialize` request is special: it returns `200 OK` with a JSON response body … and the
 *   `Acp-Connection-Id`"; then the client opens the connection-scoped GET stream.
 * - "For each session, the client opens a separate session-scoped GET stream using
 *   `Acp-Connection-Id` + `Acp-Session-Id`": when an answer hands out a `sessionId`, and before
 *   the first POST that names one; session-scoped POSTs carry `Acp-Session-Id`, and so does our
 *   answer to a request that came on a session's stream.
 * - "Clients MUST accept, store, and return cookies set by the server".
 * - POSTs go one at a time, in the order written (a `$/cancel_request` never overtakes its
 *   request). A request whose POST is refused (413, 429, 5xx) is answered with a JSON-RPC error
 *   carrying `{status, body}` (as the official TypeScript client does); 401, 403, 404 and 410, a
 *   failed notification or answer, and a network failure end the connection: every pending call
 *   fails at once.
 */

import { CONNECTION_ID, JSON_TYPE, SESSION_ID, envelope, type Envelope } from "./http_routing.js";
import { Inbox } from "./queues.js";
import type { OversizedFrame, Transport } from "./transport.js";

/** POST statuses that mean the connection is unusable or gone. */
const CONNECTION_FAILURES = new Set([401, 403, 404, 410]);
/** Bytes written and not yet POSTed above which `write` makes the writer wait. */
const HIGH_WATER = 1024 * 1024;
/** Milliseconds `close()` gives what was written to be POSTed before it ends the connection. */
const FLUSH_TIMEOUT = 2000;

/** `eventsource-parser`'s `createParser` (only what is used: the SSE parser, a library's). */
export type SseParserFactory = (callbacks: { onEvent: (event: { data: string }) => void }) => { feed(chunk: string): void };

export interface HttpClientOptions {
  /** Sent with every request (`authorization` for a token). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The largest message read, and the bytes read and not yet taken by the connection. */
  readonly frameLimit: number;
}

/** A `Transport` to the agent at `url` over Streamable HTTP (see the module). */
export class StreamableHttpTransport implements Transport {
  private readonly inbox: Inbox;
  private readonly queue: string[] = [];
  private queued = 0;
  private sending = false;
  private connectionId: string | null = null;
  private readonly cookies = new Map<string, string>();
  private readonly streams = new Map<string | null, AbortController>();
  private readonly opened = new Map<string, Promise<void>>();
  /** The agent's requests that came on a session's stream: their session. */
  private readonly answerSessions = new Map<string, string>();
  /** Our session-scoped requests: key → [session, frame id text]. */
  private readonly sessionRequests = new Map<string, [string, string]>();
  private closed = false;
  private closing: Promise<void> | null = null;
  private wakeWriters: (() => void)[] = [];
  private idle: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly createParser: SseParserFactory,
    private readonly options: HttpClientOptions,
  ) {
    this.inbox = new Inbox(options.frameLimit);
  }

  // -- the Transport protocol ----------------------------------------------------------------

  start(onFrame: (frame: string) => void, onClose: (reason: string) => void, _onOversized?: (frame: OversizedFrame) => void): void {
    this.inbox.start({ onFrame, onEnd: () => onClose(this.endReason) });
  }

  write(frame: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.queue.push(frame);
    this.queued += frame.length;
    if (!this.sending) void this.sendLoop();
    if (this.queued <= HIGH_WATER) return undefined;
    return new Promise((resolve) => this.wakeWriters.push(resolve));
  }

  pause(): void {
    this.inbox.pause();
  }

  resume(): void {
    this.inbox.resume();
  }

  /** POSTs what was written (for 2 s at most: a notification written just before closing still
   * arrives), stops reading, then ends the connection on the server (DELETE). */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.sending) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idle.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_TIMEOUT))),
      ]);
      clearTimeout(timer);
    }
    this.closed = true;
    this.queue.length = 0;
    this.sent(0);
    for (const stream of this.streams.values()) stream.abort();
    if (this.connectionId !== null) {
      try {
        await fetch(this.url, { method: "DELETE", headers: this.headers(), signal: AbortSignal.timeout(5000) });
      } catch {
        // the agent is gone already
      }
    }
    this.end("closed");
  }

  // -- sending -------------------------------------------------------------------------------

  private async sendLoop(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0 && !this.inbox.isEnded) {
        const frame = this.queue.shift() as string;
        const message = envelope(frame);
        if (message.kind === "other") {
          this.problem("not sent: a frame that is not a JSON-RPC message");
        } else if (this.connectionId === null) {
          await this.initialize(message, frame);
        } else {
          await this.post(message, frame);
        }
        this.sent(frame.length);
      }
    } finally {
      this.sending = false;
      const idle = this.idle;
      this.idle = [];
      for (const wake of idle) wake();
    }
  }

  private sent(size: number): void {
    this.queued -= size;
    if (this.queued <= HIGH_WATER || this.closed) {
      const writers = this.wakeWriters;
      this.wakeWriters = [];
      for (const wake of writers) wake();
    }
  }

  private async initialize(message: Envelope, frame: string): Promise<void> {
    if (message.method !== "initialize") {
      this.fail(message, "the first message to an HTTP agent must be initialize", null);
      return;
    }
    const response = await this.request(message, { method: "POST", headers: this.json(), body: frame });
    if (response === null) return;
    const connectionId = response.headers.get(CONNECTION_ID);
    if (response.status !== 200 || connectionId === null) {
      this.fail(message, await refusal("initialize", response), response.status);
      return;
    }
    this.connectionId = connectionId;
    this.openStream(null);
    this.receive(await response.text(), null);
  }

  private async post(message: Envelope, frame: string): Promise<void> {
    let session = message.kind === "response" ? null : message.session;
    const key = message.key;
    if (session === null && message.kind === "response" && key !== null) {
      session = this.answerSessions.get(key) ?? null;
      this.answerSessions.delete(key);
    }
    const headers = this.json();
    if (session !== null) {
      headers[SESSION_ID] = session;
      await this.streamOpen(session);
      if (message.kind === "request" && key !== null) this.sessionRequests.set(key, [session, message.id?.json ?? "null"]);
    }
    const response = await this.request(message, { method: "POST", headers, body: frame });
    if (response === null) return;
    if (response.status === 200 || response.status === 202) {
      await response.body?.cancel();
      return;
    }
    this.fail(message, await refusal(message.method ?? "answer", response), response.status);
  }

  private async request(message: Envelope, init: RequestInit): Promise<Response | null> {
    try {
      const response = await fetch(this.url, init);
      this.keepCookies(response);
      return response;
    } catch (error) {
      this.fail(message, `${this.url}: ${describe(error)}`, null, true);
      return null;
    }
  }

  /** A message that did not get through: a request is answered with an error; the connection
   * ends when it is unusable (or the message was not a request). */
  private fail(message: Envelope, reason: string, status: number | null, fatal = false): void {
    const isRequest = message.kind === "request";
    if (isRequest) {
      const data = { status, body: reason };
      this.inbox.push(`{"jsonrpc":"2.0","id":${message.id?.json ?? "null"},"error":${JSON.stringify({ code: -32603, message: reason, data })}}`);
    }
    if (fatal || !isRequest || (status !== null && CONNECTION_FAILURES.has(status)) || this.connectionId === null) {
      this.problem(reason);
      this.end(reason);
    }
  }

  // -- receiving -----------------------------------------------------------------------------

  private openStream(session: string | null): void {
    if (this.streams.has(session) || this.closed) return;
    const controller = new AbortController();
    this.streams.set(session, controller);
    const opened = this.readStream(session, controller);
    if (session !== null) this.opened.set(session, opened);
  }

  /** Waits until the session's stream answered (it receives what the POST causes). */
  private async streamOpen(session: string): Promise<void> {
    this.openStream(session);
    await this.opened.get(session);
  }

  /** Resolves once the stream is open, or could not be opened (never rejects); reads it to its
   * end. */
  private readStream(session: string | null, controller: AbortController): Promise<void> {
    const headers: Record<string, string> = { ...this.headers(), accept: "text/event-stream" };
    if (session !== null) headers[SESSION_ID] = session;
    return (async () => {
      try {
        const response = await fetch(this.url, { method: "GET", headers, signal: controller.signal });
        this.keepCookies(response);
        if (response.status !== 200 || response.body === null) throw new Error(await refusal("the event stream", response));
        void this.readEvents(session, response.body, controller);
      } catch (error) {
        if (!this.closed && !controller.signal.aborted) {
          this.problem(`${this.url}: ${describe(error)}`);
          if (session === null) this.end(`the event stream did not open: ${describe(error)}`);
        }
        this.streamEnded(session, controller);
      }
    })();
  }

  private async readEvents(session: string | null, body: ReadableStream<Uint8Array>, controller: AbortController): Promise<void> {
    const parser = this.createParser({ onEvent: (event) => event.data !== "" && this.receive(event.data, session) });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        await this.inbox.room();
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (!this.closed && !controller.signal.aborted) {
        // The agent is gone (or speaks no SSE): the connection ends, pending calls fail at once.
        this.problem(`${this.url}: the event stream broke: ${describe(error)}`);
        this.end(`the event stream broke: ${describe(error)}`);
      }
    } finally {
      this.streamEnded(session, controller);
    }
  }

  private receive(text: string, stream: string | null): void {
    if (text.includes('"sessionId"') || stream !== null) {
      const message = envelope(text);
      if (message.kind === "response") {
        if (message.session !== null) this.openStream(message.session);
        if (message.key !== null) this.sessionRequests.delete(message.key);
      } else if (message.kind === "request" && stream !== null && message.key !== null) {
        this.answerSessions.set(message.key, stream);
      }
    }
    this.inbox.push(text);
  }

  private streamEnded(session: string | null, controller: AbortController): void {
    if (this.streams.get(session) === controller) this.streams.delete(session);
    if (session !== null) this.opened.delete(session);
    if (this.closed || this.inbox.isEnded) return;
    if (session === null) {
      this.end("the agent closed the connection's event stream"); // the agent is gone
      return;
    }
    // "If a session's SSE stream closes while requests are in flight, those requests fail and the
    // next message for the session reopens its stream" (the TypeScript client).
    for (const [key, [owner, id]] of this.sessionRequests) {
      if (owner !== session) continue;
      this.sessionRequests.delete(key);
      this.inbox.push(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"the session's event stream ended"}}`);
    }
  }

  private endReason = "the agent closed the connection";

  /** The connection is unusable: our `Connection` sees the end of input (pending calls fail at
   * once) and closes us. */
  private end(reason: string): void {
    if (!this.inbox.isEnded) this.endReason = reason;
    for (const stream of this.streams.values()) stream.abort();
    this.inbox.end();
  }

  private problem(message: string): void {
    process.stderr.write(`acp http client: ${message}\n`);
  }

  private keepCookies(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(";", 1)[0] as string;
      const equals = pair.indexOf("=");
      if (equals > 0) this.cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
    }
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers };
    if (this.connectionId !== null) headers[CONNECTION_ID] = this.connectionId;
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    return headers;
  }

  private json(): Record<string, string> {
    return { ...this.headers(), "content-type": JSON_TYPE, accept: JSON_TYPE };
  }
}

async function refusal(what: string, response: Response): Promise<string> {
  const body = (await response.text().catch(() => "")).trim().split(/\r?\n/, 1)[0] ?? "";
  return `${what} refused: HTTP ${response.status}${body === "" ? "" : `: ${body.slice(0, 200)}`}`;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}
