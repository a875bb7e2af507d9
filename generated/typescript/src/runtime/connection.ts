// Copied by acp-codegen from templates/typescript/runtime/connection.ts: edit it there, then run:
//   make generate
/**
 * The JSON-RPC dispatcher: routes each line, keeps the in-flight table (the peer's requests), and
 * is the one place a handler's outcome becomes an answer. Layer: dispatcher. It is
 * method-agnostic: a `Router` (the typed layer) answers the peer's requests and notifications;
 * our own requests are `OutgoingRequests`' (outgoing.ts), the peer's each an `InFlight`
 * (incoming.ts); frames come and go through a
 * `Transport`. What a line is comes from envelope.ts (the rule book's rules,
 * tests/wire/envelope_corpus.json); the peer's ids are kept exactly as they came (ids.ts): the
 * tables key on the exact id, answers write it back.
 *
 * Cancellation of the peer's requests, in the connection's dialect (cancellation.ts; ACP
 * cancellation.mdx by default):
 * - the dialect's cancel notification (ACP `$/cancel_request`) aborts that request's `signal`
 *   (handlers see it as `ctx.signal`); unknown or finished ids are ignored ("free to ignore" `$/`
 *   notifications), and so is a cancel of a method the dialect never cancels (`initialize` in LSP
 *   and MCP);
 * - a cancelled request is still answered, once ("MUST send one of these responses for the
 *   original request"): with the handler's result if it returns one, otherwise -32800 (or the
 *   feature's own result, such as `{"stopReason": "cancelled"}`, when the router names one); in
 *   MCP a request the peer cancelled is not answered ("Not send a response"); in LSP one we cancel
 *   on our own is -32802 "Server cancelled".
 */

import { DecodeError, type Decoder } from "./decoding.js";
import { errorFrame, invalidRequest, parseError, readFrame, resultFrame } from "./envelope.js";
import { ACP, cancelledId, cancelReason, type CancelDialect } from "./cancellation.js";
import {
  ConnectionClosed,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  REQUEST_CANCELLED,
  RequestError,
  errorObject,
  type ErrorObject,
} from "./errors.js";
import { FlowControl } from "./flow_control.js";
import { headId, type WireId } from "./ids.js";
import { InFlight, type IncomingRequest } from "./incoming.js";
import { OutgoingRequests, type RequestOptions } from "./outgoing.js";
import type { OversizedFrame, Transport } from "./transports/transport.js";
import { traceFromEnvironment } from "./transports/wire_trace.js";

export { CANCEL_REQUEST, type RequestOptions } from "./outgoing.js";
export type { IncomingRequest } from "./incoming.js";

/** What the dispatcher asks of the typed layer. */
export interface Router {
  /** The result of one of the peer's requests; throws to answer with an error. */
  request(request: IncomingRequest): Promise<unknown>;
  /** Called when a notification arrives, before it is queued (feature-level cancellation). */
  received(method: string, params: unknown): void;
  /** Handles a notification: called in arrival order, as each one is read. */
  notification(method: string, params: unknown): Promise<void>;
  /** The result `request`, cancelled for `reason`, is answered with; undefined: -32800. */
  cancelledResult(reason: unknown, request: IncomingRequest): unknown;
}

export interface ConnectionOptions {
  /** Told about what the connection survives: a malformed frame, a failed notification handler. */
  onProblem?: (message: string) => void;
  /** Reading pauses while this many of the peer's requests and notifications are being handled,
   * or answered and not yet read by the peer (default 1000), and resumes below half of it. */
  maxQueued?: number;
  /** How requests are cancelled, both ways: `ACP` (default), `LSP` or `MCP` (cancellation.ts). */
  dialect?: CancelDialect;
  /** Half-close: seconds the peer's requests read before its end of input run on, and are
   * answered, before the connection closes (default 5; 0 closes at once). */
  eofGrace?: number;
}

type Outcome = { result: unknown } | { error: ErrorObject };

export class Connection {
  private readonly outgoing: OutgoingRequests;
  /** The peer's requests being handled, by their exact id's `key`. */
  private readonly inFlight = new Map<string, InFlight>();
  private closedReason: string | null = null;
  /** Why the peer's input ended, once it has: our requests fail from then on (no answer can
   * come), while the peer's requests already read run on (half-close). */
  private inputEndedReason: string | null = null;
  /** Called when the last of the peer's requests in flight is answered. */
  private whenIdle: (() => void) | null = null;
  /** The close under way or done, shared by every caller of `close`. */
  private closing: Promise<void> | null = null;
  private readonly flow: FlowControl;
  private readonly lifetime = new AbortController();
  private readonly router: Router;
  private readonly dialect: CancelDialect;
  private resolveClosed!: (reason: string) => void;
  /** Resolves with the reason once the connection is closed (by either side). */
  readonly closed: Promise<string>;
  /** The transport, recorded when ACP_TRACE is set (transports/wire_trace.ts). */
  private readonly transport: Transport;

  constructor(
    transport: Transport,
    router: (connection: Connection) => Router,
    private readonly options: ConnectionOptions = {},
  ) {
    transport = this.transport = traceFromEnvironment(transport);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.flow = new FlowControl(transport, options.maxQueued ?? 1000);
    this.dialect = options.dialect ?? ACP;
    const outbound = {
      closed: () => this.closedReason ?? this.inputEndedReason,
      write: (frame: string) => void this.transport.write(frame),
      notify: (method: string, params: unknown) => this.notify(method, params),
      problem: (message: string) => this.problem(message),
    };
    this.outgoing = new OutgoingRequests(outbound, this.dialect);
    this.router = router(this);
    transport.start(
      (frame) => this.receive(frame),
      (reason) => void this.inputEnded(reason),
      (frame) => this.oversized(frame),
      (size) => this.unreadable(size),
      (reason) => this.problem(`dropped bytes the framing cannot read: ${reason}`),
    );
  }

  /** Aborted when the connection closes: the signal of notification handlers. */
  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  /** Sends a request; resolves with its checked result, rejects with the peer's `RequestError`. */
  request(method: string, params: unknown, decode: Decoder, options: RequestOptions = {}): Promise<unknown> {
    return this.outgoing.request(method, params, decode, options);
  }

  /** Sends a notification; resolves once the transport has room for more. */
  async notify(method: string, params: unknown): Promise<void> {
    if (this.closedReason !== null) throw new ConnectionClosed(this.closedReason);
    await this.transport.write(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** Aborts the peer's in-flight requests that `match` with `reason`; how many it aborted. */
  cancelIncoming(match: (request: IncomingRequest) => boolean, reason: unknown): number {
    let count = 0;
    for (const request of this.inFlight.values()) {
      if (!request.aborted && match(request)) {
        request.abort(reason);
        count++;
      }
    }
    return count;
  }

  /** Closes the transport: our pending requests reject, the peer's in-flight ones are aborted.
   * Every call resolves once the transport is closed, not only the first (the peer's end of the
   * stream may have started the close, and the caller waits for its program to be gone). */
  close(reason = "closed"): Promise<void> {
    this.closing ??= this.shutdown(reason);
    return this.closing;
  }

  /**
   * The peer's end of input. Half-close, as in the Python runtime: "every pending caller fails
   * promptly" (no answer can come), and the requests the peer sent before its end (`printf … |
   * agent`) run on for up to `eofGrace` seconds and are answered; what still runs then is
   * aborted by the close (`-32800`). A peer that stopped reading too ends this at our first
   * write (the transport closes).
   */
  private async inputEnded(reason: string): Promise<void> {
    if (this.closing !== null || this.inputEndedReason !== null) return;
    this.inputEndedReason = reason;
    this.outgoing.failAll(new ConnectionClosed(reason));
    const grace = (this.options.eofGrace ?? 5) * 1000;
    if (grace > 0) await this.idle(grace);
    if (this.inFlight.size > 0) {
      // Past the grace: cancelled, and answered so (-32800) before the connection closes.
      const closed = new ConnectionClosed(reason);
      for (const request of this.inFlight.values()) request.abort(closed);
      await this.idle(100);
    }
    await this.close(reason);
  }

  /** Resolves once none of the peer's requests is in flight, or after `ms`. */
  private idle(ms: number): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.whenIdle = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.whenIdle = done;
    });
  }

  private async shutdown(reason: string): Promise<void> {
    this.closedReason = reason;
    const closed = new ConnectionClosed(reason);
    this.outgoing.failAll(closed);
    for (const request of this.inFlight.values()) request.abort(closed);
    this.lifetime.abort(closed);
    await this.transport.close();
    this.resolveClosed(reason);
  }

  private receive(text: string): void {
    const frame = readFrame(text);
    switch (frame.kind) {
      case "request":
        this.handleRequest(frame.id, frame.method, frame.params);
        return;
      case "notification":
        this.handleNotification(frame.method, frame.params, text);
        return;
      case "response":
        this.outgoing.onResponse(frame.id, frame.result, frame.error);
        return;
      case "invalid":
        this.problem(`an invalid frame: ${frame.reason}: ${text.slice(0, 80)}`);
        // §4.1: "The Server MUST NOT reply to a Notification", a malformed one included.
        if (frame.answer) this.refuse(frame.id, invalidRequest(frame.reason));
        return;
      case "unparsable":
        this.problem(`a frame that is not JSON: ${text.slice(0, 80)}`);
        this.refuse(null, parseError(frame.reason));
        return;
      case "blank":
        return; // blank lines between frames carry no message
    }
  }

  /** A line that is not UTF-8 text: JSON text "MUST be encoded using UTF-8" (RFC 8259 §8.1), so
   * it is not JSON: -32700 with a null id. */
  private unreadable(size: number): void {
    this.problem(`a frame of ${size} bytes that is not UTF-8`);
    this.refuse(null, parseError("the frame is not UTF-8 text"));
  }

  /** A frame over the limit was dropped unread. When its head shows an id, no one waits forever:
   * a request is answered -32600, an answer to one of ours fails its caller. */
  private oversized(frame: OversizedFrame): void {
    this.problem(`dropped a frame of ${frame.size} bytes (over the frame limit)`);
    const id = headId(frame.head);
    if (id === null) return;
    const details = { details: "the frame is over the size limit", size: frame.size };
    if (/"method"\s*:/.test(frame.head)) {
      this.refuse(id, { code: INVALID_REQUEST, message: "Invalid Request", data: details });
      return;
    }
    this.outgoing.onOversized(id, details);
  }

  private handleRequest(id: WireId, method: string, params: unknown): void {
    if (this.closedReason !== null) return;
    if (method.startsWith("$/")) {
      // LSP: "requests starting with '$/' … MUST respond with MethodNotFound"; ACP defines none.
      this.refuse(id, RequestError.methodNotFound(method).toObject());
      return;
    }
    if (this.inFlight.has(id.key)) {
      // ACP v2: "A sender MUST NOT reuse an ID while a request with it is still awaiting a
      // response": refused, and the first keeps its answer.
      this.refuse(id, invalidRequest(`request id ${id.json} is already in use by a request in flight`));
      return;
    }
    const request = new InFlight(id, method, params);
    this.inFlight.set(id.key, request);
    this.flow.began();
    this.router.request(request).then(
      (result) => this.finish(request, { result: result ?? null }),
      (error: unknown) => this.finish(request, this.failure(request, error)),
    );
  }

  /** The one mapping of a handler's failure: a cancelled request's failure is its cancellation
   * ("consistent behavior regardless of cancellation source"), -32800 unless the dialect tells our
   * own cancellation apart (LSP: -32802); but a `RequestError` of the handler's own stands, as in
   * the Python runtime: it is the handler's answer (a handler that had already failed -32601 when
   * the cancel was read keeps that answer: a cancel "after the handler finished changes nothing"). */
  private failure(request: InFlight, error: unknown): Outcome {
    if (request.aborted) {
      const result = this.router.cancelledResult(request.reason, request);
      if (result !== undefined) return { result };
    }
    const handlers = error instanceof RequestError && error.code !== REQUEST_CANCELLED;
    const object = request.aborted && !handlers ? RequestError.cancelled(request.id).toObject() : errorObject(error, request.id);
    const own = this.dialect.selfCancel;
    if (object.code === REQUEST_CANCELLED && own !== null && !request.byPeer) return { error: { ...object, ...own } };
    return { error: object };
  }

  private finish(request: InFlight, outcome: Outcome): void {
    this.inFlight.delete(request.wire.key); // a cancel from now on is for a finished request
    if (this.inFlight.size === 0 && this.whenIdle !== null) queueMicrotask(this.whenIdle); // after the answer
    if (request.byPeer && !this.dialect.answersCancelled) {
      this.flow.ended(); // MCP: "Not send a response for the cancelled request"
      return;
    }
    this.flow.ended(this.answer(request.wire, outcome));
  }

  private handleNotification(method: string, params: unknown, text: string): void {
    const { dialect } = this;
    if (method === dialect.method) {
      const id = cancelledId(dialect, text, params);
      const request = id === null ? undefined : this.inFlight.get(id.key);
      if (request !== undefined && !request.aborted && !dialect.uncancellable.has(request.method)) {
        // MCP: "Both parties SHOULD log cancellation reasons": the reason is in the abort's data.
        const reason = cancelReason(dialect, params);
        const data = reason === undefined ? { requestId: request.id } : { requestId: request.id, reason };
        request.byPeer = true;
        request.abort(new RequestError(REQUEST_CANCELLED, "Request cancelled", data));
      }
      return; // an unknown, finished or malformed id is ignored, and never answered
    }
    // Any other notification, `$/…` ones included, is the router's (which may ignore it: "free
    // to ignore", LSP), as in the Python runtime.
    this.router.received(method, params);
    // Started at once, in arrival order (its synchronous part runs before the next frame is read):
    // never queued behind another handler, so a handler that awaits an answer cannot deadlock.
    this.flow.began();
    this.router.notification(method, params).then(
      () => this.flow.ended(),
      (error: unknown) => {
        this.flow.ended();
        const where = error instanceof DecodeError ? ` at ${error.pointer || "/"}` : "";
        this.problem(`notification ${method} failed${where}: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** Answers with an error a frame that never became a request in flight. While the peer does not
   * read our output, such an answer counts as work until it is read (flow control). */
  private refuse(id: WireId | null, error: ErrorObject): void {
    const full = this.answer(id, { error });
    if (full !== undefined) {
      this.flow.began();
      this.flow.ended(full);
    }
  }

  /** Writes an answer with the request's exact id; the transport's promise when its buffer is
   * over the mark. A result or error data JSON cannot encode is answered -32603. */
  private answer(id: WireId | null, outcome: Outcome): Promise<void> | undefined {
    if (this.closedReason !== null) return undefined;
    let frame: string;
    try {
      frame = "error" in outcome ? errorFrame(id, outcome.error) : resultFrame(id as WireId, outcome.result);
    } catch (failure) {
      const details = `the answer cannot be encoded: ${failure instanceof Error ? failure.message : String(failure)}`;
      this.problem(details);
      frame = errorFrame(id, { code: INTERNAL_ERROR, message: "Internal error", data: { details } });
    }
    return this.transport.write(frame);
  }

  private problem(message: string): void {
    this.options.onProblem?.(message);
  }
}
