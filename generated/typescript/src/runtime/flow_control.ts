// Copied by acp-codegen from templates/typescript/runtime/flow_control.ts: edit it there, then run:
//   make generate
/**
 * Flow control of incoming work: a peer that floods us, or stops reading our answers, cannot make
 * our memory grow without bound. Layer: dispatcher (the connection reports work and writes; this
 * pauses and resumes the transport's reading).
 */

import type { Transport } from "./transport.js";

export class FlowControl {
  /** The peer's requests and notifications being handled. */
  private working = 0;
  /** Our output is over the transport's buffer (the peer is not reading our answers). */
  private writeBlocked = false;
  private paused = false;

  constructor(
    private readonly transport: Transport,
    private readonly maxQueued: number,
  ) {}

  /** One more request or notification is being handled. */
  began(): void {
    this.working++;
    if (this.working >= this.maxQueued) this.adjust();
  }

  /** One request or notification was handled. */
  ended(): void {
    this.working--;
    if (this.paused) this.adjust();
  }

  /** An answer was written; `full` is the transport's promise when its buffer is over the mark. */
  written(full: Promise<void> | undefined): void {
    if (full === undefined || this.writeBlocked) return;
    this.writeBlocked = true;
    this.adjust();
    void full.then(() => {
      this.writeBlocked = false;
      this.adjust();
    });
  }

  /** Reading pauses at `maxQueued` or a full output; it resumes below half, output drained. */
  private adjust(): void {
    if (!this.paused && (this.working >= this.maxQueued || this.writeBlocked)) {
      this.paused = true;
      this.transport.pause();
    } else if (this.paused && !this.writeBlocked && this.working <= this.maxQueued / 2) {
      this.paused = false;
      this.transport.resume();
    }
  }
}
