// Copied by acp-codegen from templates/typescript/runtime/flow_control.ts: edit it there, then run:
//   make generate
/**
 * Flow control of incoming work: a peer that floods us, or stops reading our answers, cannot make
 * our memory grow without bound. Layer: dispatcher (the connection reports work; this pauses and
 * resumes the transport's reading).
 *
 * A request counts until its answer has left our buffer: an answer the peer does not read keeps
 * its request counted, so reading stops at `maxQueued` of them. Reading never waits on our own
 * writing as such: two peers that both did, each sending the other more than the pipes hold,
 * would wait on each other forever.
 */

import type { Transport } from "./transports/transport.js";

export class FlowControl {
  /** The peer's requests and notifications being handled, or answered and not yet read. */
  private working = 0;
  private paused = false;

  constructor(
    private readonly transport: Transport,
    private readonly maxQueued: number,
  ) {}

  /** One more request or notification is being handled. */
  began(): void {
    this.working++;
    if (!this.paused && this.working >= this.maxQueued) {
      this.paused = true;
      this.transport.pause();
    }
  }

  /** One request or notification was handled (a request: its answer is written, and `full`, the
   * transport's promise when its buffer is over the mark, has resolved). */
  ended(full?: Promise<void>): void {
    if (full !== undefined) {
      const done = (): void => this.ended();
      void full.then(done, done);
      return;
    }
    this.working--;
    if (this.paused && this.working <= this.maxQueued / 2) {
      this.paused = false;
      this.transport.resume();
    }
  }
}
