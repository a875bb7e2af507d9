/**
 * The peer's requests as the dispatcher (connection.ts) keeps them while they are handled: what a
 * handler sees of one (`IncomingRequest`: id, method, params, its `signal`) and the entry of the
 * in-flight table behind it (`InFlight`: the exact wire id, who cancelled it, its abort). Layer:
 * dispatcher. The Python runtime's `request_state.InFlight` is the same entry.
 */

import type { RequestId } from "./errors.js";
import type { WireId } from "./ids.js";

/** A request of the peer's being handled. */
export interface IncomingRequest {
  /** Its id as a JavaScript value (beyond 2^53, the nearest double: the answer still carries
   * the exact id). */
  readonly id: RequestId;
  readonly method: string;
  readonly params: unknown;
  /** Aborted when the peer cancels the request, a feature rule cancels it, or we close. */
  readonly signal: AbortSignal;
}

/** A peer's request being handled. Its `AbortSignal` is made only when something asks for it
 * (a handler reading `ctx.signal`, a nested request): node 20 takes about 6 µs to make one, more
 * than the rest of a round trip's handling, and most handlers never look. Aborted before it is
 * made, the signal is made aborted, with the same reason. */
export class InFlight implements IncomingRequest {
  readonly id: RequestId;
  /** Cancelled by the peer's cancel notification (not by us, a feature rule or closing). */
  byPeer = false;
  private controller: AbortController | null = null;
  private abortedWith: { readonly reason: unknown } | null = null;

  constructor(
    readonly wire: WireId,
    readonly method: string,
    readonly params: unknown,
  ) {
    this.id = wire.value;
  }

  get aborted(): boolean {
    return this.abortedWith !== null;
  }

  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.abortedWith !== null) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.abortedWith !== null) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}
