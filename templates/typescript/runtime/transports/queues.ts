/**
 * The queues between a message transport (HTTP, WebSocket) and a connection. Layer: transport.
 * The same queues as the Python runtime's `transports/queues.py`:
 *
 * - `Inbox`: the peer's messages waiting for the connection (held while it is paused: flow
 *   control), bounded in bytes (`put` says no past the bound: the HTTP server answers 429, the
 *   WebSocket is closed).
 * - `Outbox`: our messages for one stream of the peer (the RFD's connection-scoped or a
 *   session-scoped SSE stream), kept until that stream's one receiver takes them, all that is
 *   queued at a time; counted in a shared `Backlog`, which the connection's flow control reads.
 */

/** Where an inbox delivers: the connection's `onFrame`, then `onClose` once at the end. */
export interface InboxSink {
  onFrame(frame: string): void;
  onEnd(): void;
}

/** What the peer sent, in order, up to `limit` bytes waiting. */
export class Inbox {
  private frames: string[] = [];
  private size = 0;
  private sink: InboxSink | null = null;
  private paused = false;
  private delivering = false;
  private ended = false;
  private endDelivered = false;
  private roomWaiters: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  get isEnded(): boolean {
    return this.ended;
  }

  /** Starts delivering to `sink` (what came before waited). */
  start(sink: InboxSink): void {
    this.sink = sink;
    this.deliver();
  }

  /** Queues one message; false when it would pass the bound (nothing is queued) or the inbox has
   * ended. */
  put(frame: string): boolean {
    if (this.ended || (this.size > 0 && this.size + frame.length > this.limit)) return false;
    this.frames.push(frame);
    this.size += frame.length;
    this.deliver();
    return true;
  }

  /** Queues one message whatever the bound (an answer we make up for the connection). */
  push(frame: string): void {
    if (this.ended) return;
    this.frames.push(frame);
    this.size += frame.length;
    this.deliver();
  }

  /** Resolves once fewer than `limit` bytes wait (or the inbox ended): a stream's reader waits
   * for it before reading more, so TCP makes the sender wait. */
  room(): Promise<void> {
    if (this.size < this.limit || this.ended) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** No more input: what is queued is delivered, then the end. */
  end(): void {
    this.ended = true;
    this.deliver();
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.deliver();
  }

  private deliver(): void {
    const sink = this.sink;
    if (sink === null || this.delivering) return;
    this.delivering = true;
    try {
      while (!this.paused && this.frames.length > 0) {
        const frame = this.frames.shift() as string;
        this.size -= frame.length;
        sink.onFrame(frame);
      }
      if (this.roomWaiters.length > 0 && (this.size < this.limit || this.ended)) {
        const waiters = this.roomWaiters;
        this.roomWaiters = [];
        for (const wake of waiters) wake();
      }
      if (this.ended && this.frames.length === 0 && !this.endDelivered) {
        this.endDelivered = true;
        sink.onEnd();
      }
    } finally {
      this.delivering = false;
    }
  }
}

/** The bytes queued in a connection's outboxes, and a wake-up for writers waiting for them to be
 * taken. */
export class Backlog {
  size = 0;
  private waiters: (() => void)[] = [];

  taken(size: number): void {
    this.size -= size;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves true when something is taken, false when `timeoutMs` pass first. */
  progress(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        resolve(false);
      }, timeoutMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(wake);
    });
  }
}

/** The one reader of an outbox: an SSE response, or a WebSocket. */
export interface Receiver {
  /** Takes messages; false when it wants no more until it calls `outbox.flush()` again. */
  take(messages: readonly string[]): boolean;
  /** The stream ended (the connection closed) after everything was taken. */
  end(): void;
}

/** Our messages for one stream, until its receiver takes them (one receiver at a time). */
export class Outbox {
  private items: string[] = [];
  private size = 0;
  private finished = false;
  private receiver: Receiver | null = null;
  private ready = false;
  private scheduled = false;

  constructor(private readonly backlog: Backlog) {}

  get hasReceiver(): boolean {
    return this.receiver !== null;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  put(message: string): void {
    if (this.finished) return;
    this.items.push(message);
    this.size += message.length;
    this.backlog.size += message.length;
    this.schedule();
  }

  /** Becomes this stream's receiver; false when it has one (or is finished). */
  acquire(receiver: Receiver): boolean {
    if (this.receiver !== null || this.finished) return false;
    this.receiver = receiver;
    this.ready = true;
    this.schedule();
    return true;
  }

  /** The receiver left (its client disconnected): what is queued waits for the next. */
  release(receiver: Receiver): void {
    if (this.receiver === receiver) this.receiver = null;
  }

  /** The connection ended: the receiver gets what is queued, then the end. */
  finish(): void {
    this.finished = true;
    this.schedule();
  }

  /** The receiver can take more (its socket drained). */
  flush(): void {
    this.ready = true;
    this.schedule();
  }

  /** Everything queued in one hand-over, on the next turn (what one turn writes goes together). */
  private schedule(): void {
    if (this.scheduled || this.receiver === null) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.handOver();
    });
  }

  private handOver(): void {
    const receiver = this.receiver;
    if (receiver === null || !this.ready) return;
    if (this.items.length > 0) {
      const items = this.items;
      const size = this.size;
      this.items = [];
      this.size = 0;
      this.ready = receiver.take(items);
      this.backlog.taken(size);
    }
    if (this.finished && this.items.length === 0 && this.receiver === receiver) {
      this.receiver = null;
      receiver.end();
    }
  }
}
