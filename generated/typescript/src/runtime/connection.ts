// Copied by acp-codegen from templates/typescript/runtime/connection.ts: edit it there, then run:
//   make generate
/**
 * The JSON-RPC dispatcher: ids, the pending table (our requests) and the in-flight table (the
 * peer's), `$/cancel_request` in both directions, and the one place a handler's outcome becomes
 * an answer. Layer: dispatcher. It is method-agnostic: a `Router` (the typed layer) answers the
 * peer's requests and notifications; frames come and go through a `Transport`.
 *
 * Cancellation (ACP cancellation.mdx):
 * - our request's `signal` aborting sends `{"method": "$/cancel_request", "params": {"requestId"}}`
 *   once; by default we keep waiting for the answer ("The calling side MAY implement graceful
 *   cancellation processing by waiting for the response"); with `stopWaitingOnCancel` the call
 *   rejects at once with -32800 and the late answer is matched by id and dropped;
 * - the peer's `$/cancel_request` aborts that request's `signal` (handlers see it as
 *   `ctx.signal`); unknown or finished ids are ignored ("free to ignore" `$/` notifications);
 * - a cancelled request is still answered, once ("MUST send one of these responses for the
 *   original request"): with the handler's result if it returns one, otherwise -32800 (or the
 *   feature's own result, such as `{"stopReason": "cancelled"}`, when the router names one).
 */

import { DecodeError, type Decoder } from "./decoding.js";
import {
  ConnectionClosed,
  INVALID_REQUEST,
  PARSE_ERROR,
  RequestError,
  errorObject,
  type ErrorObject,
  type RequestId,
} from "./errors.js";
import { FlowControl } from "./flow_control.js";
import type { OversizedFrame, Transport } from "./transport.js";

export const CANCEL_REQUEST = "$/cancel_request";

export interface RequestOptions {
  /** Aborting it cancels the request (`$/cancel_request`). */
  signal?: AbortSignal | undefined;
  /** On abort, reject at once with -32800 instead of waiting for the peer's answer. */
  stopWaitingOnCancel?: boolean | undefined;
}

/** A request of the peer's being handled. */
export interface IncomingRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: unknown;
  /** Aborted when the peer cancels the request, a feature rule cancels it, or we close. */
  readonly signal: AbortSignal;
}

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
}

interface Pending {
  readonly method: string;
  readonly decode: Decoder;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  release(): void;
  /** Sends `$/cancel_request` for it (once: its signal's listener fires once). */
  cancel(): void;
  abandoned: boolean;
}

type Outcome = { result: unknown } | { error: ErrorObject };

interface InFlight extends IncomingRequest {
  readonly controller: AbortController;
}

export class Connection {
  private nextId = 0;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly watched = new WeakMap<AbortSignal, Set<Pending>>();
  private readonly inFlight = new Map<RequestId, InFlight>();
  private closedReason: string | null = null;
  /** The close under way or done, shared by every caller of `close`. */
  private closing: Promise<void> | null = null;
  private readonly flow: FlowControl;
  private readonly lifetime = new AbortController();
  private readonly router: Router;
  private resolveClosed!: (reason: string) => void;
  /** Resolves with the reason once the connection is closed (by either side). */
  readonly closed: Promise<string>;

  constructor(
    private readonly transport: Transport,
    router: (connection: Connection) => Router,
    private readonly options: ConnectionOptions = {},
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.flow = new FlowControl(transport, options.maxQueued ?? 1000);
    this.router = router(this);
    transport.start(
      (frame) => this.receive(frame),
      (reason) => void this.close(reason),
      (frame) => this.oversized(frame),
    );
  }

  /** Aborted when the connection closes: the signal of notification handlers. */
  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  /** Sends a request; resolves with its checked result, rejects with the peer's `RequestError`. */
  request(method: string, params: unknown, decode: Decoder, options: RequestOptions = {}): Promise<unknown> {
    if (this.closedReason !== null) return Promise.reject(new ConnectionClosed(this.closedReason));
    const id = this.nextId++;
    const { signal, stopWaitingOnCancel = false } = options;
    if (signal?.aborted) return Promise.reject(RequestError.cancelled(id)); // never sent
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        method,
        decode,
        resolve,
        reject,
        release: () => undefined,
        abandoned: false,
        cancel: () => {
          void this.notify(CANCEL_REQUEST, { requestId: id }).catch(() => undefined);
          if (stopWaitingOnCancel) {
            entry.abandoned = true;
            reject(RequestError.cancelled(id));
          }
        },
      };
      this.pending.set(id, entry);
      if (signal !== undefined) this.watch(signal, entry);
      void this.transport.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** One abort listener per signal, however many requests it cancels (a handler's signal is
   * shared by all its nested requests). */
  private watch(signal: AbortSignal, entry: Pending): void {
    let entries = this.watched.get(signal);
    if (entries === undefined) {
      const watched = new Set<Pending>();
      entries = watched;
      this.watched.set(signal, watched);
      signal.addEventListener(
        "abort",
        () => {
          for (const waiting of [...watched]) waiting.cancel();
          watched.clear();
        },
        { once: true },
      );
    }
    const set = entries;
    set.add(entry);
    entry.release = () => set.delete(entry);
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
      if (!request.signal.aborted && match(request)) {
        request.controller.abort(reason);
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

  private async shutdown(reason: string): Promise<void> {
    this.closedReason = reason;
    const closed = new ConnectionClosed(reason);
    for (const entry of this.pending.values()) {
      entry.release();
      entry.reject(closed);
    }
    this.pending.clear();
    for (const request of this.inFlight.values()) request.controller.abort(closed);
    this.lifetime.abort(closed);
    await this.transport.close();
    this.resolveClosed(reason);
  }

  private receive(frame: string): void {
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch (error) {
      this.problem(`a frame that is not JSON: ${frame.slice(0, 80)}`);
      this.refuse(null, { code: PARSE_ERROR, message: "Parse error", data: { details: String(error) } });
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.refuse(null, { code: INVALID_REQUEST, message: "Invalid Request" });
      return;
    }
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    const hasId = Object.hasOwn(message, "id");
    if (hasId && !isRequestId(id)) {
      this.refuse(null, { code: INVALID_REQUEST, message: "Invalid Request", data: { details: "bad id" } });
    } else if (typeof method === "string") {
      if (hasId) this.handleRequest(id as RequestId, method, params);
      else this.handleNotification(method, params);
    } else if (hasId) {
      this.handleResponse(id as RequestId, message as { result?: unknown; error?: unknown });
    } else {
      this.refuse(null, { code: INVALID_REQUEST, message: "Invalid Request" });
    }
  }

  /** A frame over the limit was dropped unread. When its head shows an id, no one waits forever:
   * a request is answered -32600, an answer to one of ours fails its caller. */
  private oversized(frame: OversizedFrame): void {
    this.problem(`dropped a frame of ${frame.size} bytes (over the frame limit)`);
    const found = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(frame.head);
    if (found?.[1] === undefined) return;
    const id = JSON.parse(found[1]) as RequestId;
    const details = { details: "the frame is over the size limit", size: frame.size };
    if (/"method"\s*:/.test(frame.head)) {
      this.refuse(id, { code: INVALID_REQUEST, message: "Invalid Request", data: details });
      return;
    }
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    this.pending.delete(id);
    entry.release();
    if (!entry.abandoned) entry.reject(new RequestError(INVALID_REQUEST, "The answer is over the frame size limit", details));
  }

  private handleRequest(id: RequestId, method: string, params: unknown): void {
    if (this.closedReason !== null) return;
    if (method.startsWith("$/")) {
      // LSP: "requests starting with '$/' … MUST respond with MethodNotFound"; ACP defines none.
      this.refuse(id, RequestError.methodNotFound(method).toObject());
      return;
    }
    if (this.inFlight.has(id)) {
      this.refuse(id, { code: INVALID_REQUEST, message: "Invalid Request", data: { details: "id in use" } });
      return;
    }
    const controller = new AbortController();
    const request: InFlight = { id, method, params, signal: controller.signal, controller };
    this.inFlight.set(id, request);
    this.flow.began();
    this.router.request(request).then(
      (result) => this.finish(request, { result: result ?? null }),
      (error: unknown) => this.finish(request, this.failure(request, error)),
    );
  }

  /** The one mapping of a handler's failure: a cancelled request's failure is its cancellation. */
  private failure(request: InFlight, error: unknown): Outcome {
    if (request.signal.aborted) {
      const result = this.router.cancelledResult(request.signal.reason, request);
      return result !== undefined ? { result } : { error: RequestError.cancelled(request.id).toObject() };
    }
    return { error: errorObject(error, request.id) };
  }

  private finish(request: InFlight, outcome: Outcome): void {
    this.inFlight.delete(request.id); // a cancel from now on is for a finished request
    const full =
      "error" in outcome
        ? this.answer(request.id, undefined, outcome.error)
        : this.answer(request.id, outcome.result, undefined);
    this.flow.ended(full);
  }

  private handleNotification(method: string, params: unknown): void {
    if (method === CANCEL_REQUEST) {
      const requestId = (params as { requestId?: unknown } | null)?.requestId;
      const request = isRequestId(requestId) ? this.inFlight.get(requestId) : undefined;
      if (request !== undefined && !request.signal.aborted) {
        request.controller.abort(RequestError.cancelled(request.id));
      }
      return; // an unknown or finished id is ignored
    }
    if (method.startsWith("$/")) return; // "free to ignore the notification"
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

  private handleResponse(id: RequestId, message: { result?: unknown; error?: unknown }): void {
    const entry = this.pending.get(id);
    if (entry === undefined) {
      this.problem(`an answer to no request of ours (id ${JSON.stringify(id)})`);
      return;
    }
    this.pending.delete(id);
    entry.release();
    if (entry.abandoned) return; // we stopped waiting: the late answer is dropped
    const error = message.error as Partial<ErrorObject> | undefined;
    if (error !== undefined && error !== null) {
      entry.reject(new RequestError(Number(error.code), String(error.message ?? ""), error.data));
      return;
    }
    try {
      entry.resolve(entry.decode(message.result));
    } catch (failure) {
      entry.reject(failure);
    }
  }

  /** Answers with an error a frame that never became a request in flight. While the peer does not
   * read our output, such an answer counts as work until it is read (flow control). */
  private refuse(id: RequestId, error: ErrorObject): void {
    const full = this.answer(id, undefined, error);
    if (full !== undefined) {
      this.flow.began();
      this.flow.ended(full);
    }
  }

  /** Writes an answer; the transport's promise when its buffer is over the mark. */
  private answer(id: RequestId, result: unknown, error: ErrorObject | undefined): Promise<void> | undefined {
    if (this.closedReason !== null) return undefined;
    const frame = error === undefined ? { jsonrpc: "2.0", id, result } : { jsonrpc: "2.0", id, error };
    return this.transport.write(JSON.stringify(frame));
  }

  private problem(message: string): void {
    this.options.onProblem?.(message);
  }
}

function isRequestId(value: unknown): value is RequestId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}
