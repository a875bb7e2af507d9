/**
 * Our requests: their ids, the pending table, their cancellation, and each answer handed to its
 * caller. Layer: dispatcher (the connection joins it to the wire through `Outbound`).
 *
 * Cancellation, in the connection's dialect (cancellation.ts): a request's `signal` aborting sends the
 * dialect's cancel notification once (ACP `$/cancel_request {requestId}`); by default we keep
 * waiting for the answer (ACP: "The calling side MAY implement graceful cancellation processing by
 * waiting for the response"); with `stopWaitingOnCancel` the call rejects at once with -32800 and
 * the late answer is matched by id and dropped. In MCP no answer comes ("Not send a response"):
 * the call rejects at once and the id is forgotten ("SHOULD ignore any response to the request
 * that arrives afterward"). A method the dialect never cancels (`initialize` in LSP and MCP) sends
 * no notification.
 */

import type { Decoder } from "./decoding.js";
import { ACP, cancelParams, type CancelDialect } from "./cancellation.js";
import { ConnectionClosed, INVALID_REQUEST, REQUEST_CANCELLED, RequestError, type ErrorObject } from "./errors.js";
import { ourKey, type WireId } from "./ids.js";

/** ACP's cancel notification (`ACP.method`). */
export const CANCEL_REQUEST = ACP.method;

export interface RequestOptions {
  /** Aborting it cancels the request (the dialect's cancel notification; in MCP a string
   * `signal.reason` is sent as its `reason`). */
  signal?: AbortSignal | undefined;
  /** On abort, reject at once with -32800 instead of waiting for the peer's answer. */
  stopWaitingOnCancel?: boolean | undefined;
}

/** What our requests need of the connection. */
export interface Outbound {
  /** Why the connection is closed; null while it is open. */
  closed(): string | null;
  /** Writes one frame. */
  write(frame: string): void;
  /** Sends a notification (a cancel). */
  notify(method: string, params: unknown): Promise<void>;
  /** Tells about what the connection survives. */
  problem(message: string): void;
}

interface Pending {
  readonly method: string;
  readonly decode: Decoder;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  release(): void;
  /** Sends the dialect's cancel for it (once: its signal's listener fires once). */
  cancel(reason: unknown): void;
  abandoned: boolean;
}

export class OutgoingRequests {
  private nextId = 0;
  /** Our requests waiting for an answer, by `ourKey(id)`. */
  private readonly pending = new Map<string, Pending>();
  private readonly watched = new WeakMap<AbortSignal, Set<Pending>>();

  constructor(
    private readonly out: Outbound,
    private readonly dialect: CancelDialect = ACP,
  ) {}

  /** Sends a request; resolves with its checked result, rejects with the peer's `RequestError`. */
  request(method: string, params: unknown, decode: Decoder, options: RequestOptions = {}): Promise<unknown> {
    const closedReason = this.out.closed();
    if (closedReason !== null) return Promise.reject(new ConnectionClosed(closedReason));
    const id = this.nextId++;
    const { signal, stopWaitingOnCancel = false } = options;
    if (signal?.aborted) return Promise.reject(RequestError.cancelled(id)); // never sent
    const { dialect } = this;
    const key = ourKey(id);
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        method,
        decode,
        resolve,
        reject,
        release: () => undefined,
        abandoned: false,
        cancel: (why) => {
          const reason = typeof why === "string" ? why : undefined;
          const cancellable = !dialect.uncancellable.has(method);
          if (cancellable) void this.out.notify(dialect.method, cancelParams(dialect, id, reason)).catch(() => undefined);
          const answered = dialect.answersCancelled || !cancellable;
          if (answered && !stopWaitingOnCancel) return; // graceful: the peer's answer settles it
          entry.abandoned = true;
          if (!answered && this.pending.get(key) === entry) {
            this.pending.delete(key); // MCP: no answer will come; a late one is ignored
            entry.release();
          }
          const data = answered ? { requestId: id } : { requestId: id, sent: true, ...(reason === undefined ? {} : { reason }) };
          reject(new RequestError(REQUEST_CANCELLED, "Request cancelled", data));
        },
      };
      this.pending.set(key, entry);
      if (signal !== undefined) this.watch(signal, entry);
      this.out.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
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
          for (const waiting of [...watched]) waiting.cancel(signal.reason);
          watched.clear();
        },
        { once: true },
      );
    }
    const set = entries;
    set.add(entry);
    entry.release = () => set.delete(entry);
  }

  /** A response: handed to the caller of our request with that exact id; one to no request of
   * ours (or with an id that is not one) is dropped. */
  onResponse(id: WireId | null, result: unknown, error: unknown): void {
    const entry = this.take(id);
    if (entry === undefined) {
      if (error !== undefined && error !== null && id === null) this.out.problem(`the peer reported an error: ${JSON.stringify(error)}`);
      else this.out.problem(`an answer to no request of ours (id ${id?.json ?? "null"})`);
      return;
    }
    if (entry.abandoned) return; // we stopped waiting: the late answer is dropped
    if (error !== undefined && error !== null) {
      const { code, message, data } = error as Partial<ErrorObject>;
      entry.reject(new RequestError(Number(code), String(message ?? ""), data));
      return;
    }
    try {
      entry.resolve(entry.decode(result));
    } catch (failure) {
      entry.reject(failure);
    }
  }

  /** An answer to request `id` was over the frame limit: its caller fails. */
  onOversized(id: WireId, details: unknown): void {
    const entry = this.take(id);
    if (entry !== undefined && !entry.abandoned) {
      entry.reject(new RequestError(INVALID_REQUEST, "The answer is over the frame size limit", details));
    }
  }

  /** The connection closed: every caller fails with `closed`. */
  failAll(closed: ConnectionClosed): void {
    for (const entry of this.pending.values()) {
      entry.release();
      entry.reject(closed);
    }
    this.pending.clear();
  }

  private take(id: WireId | null): Pending | undefined {
    const entry = id === null ? undefined : this.pending.get(id.key);
    if (id === null || entry === undefined) return undefined;
    this.pending.delete(id.key);
    entry.release();
    return entry;
  }
}
