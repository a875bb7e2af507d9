/**
 * Transports: JSON-RPC messages over this process's stdio, a spawned program's stdio, or an
 * in-memory pair; on a byte stream framed as NDJSON lines (the default) or with the LSP base
 * protocol's `Content-Length` headers, chosen per transport (framing.ts). Layer: transport (bytes
 * ↔ frames); it knows nothing of JSON-RPC.
 *
 * A frame may be up to `DEFAULT_FRAME_LIMIT` bytes; a longer one is dropped unread (its first
 * bytes and size are reported, the connection stays up) and memory stays bounded whatever the peer
 * sends. A spawned program's transport is in process.ts.
 */

import type { Readable, Writable } from "node:stream";
import { DEFAULT_FRAME_LIMIT, NDJSON, type Framing, type OversizedFrame } from "./framing.js";

export { DEFAULT_FRAME_LIMIT, LineSplitter, type OversizedFrame } from "./framing.js";

/** How the dispatcher meets the bytes: frames in (`onFrame`, then `onClose` once), frames out. */
export interface Transport {
  /**
   * Starts reading; `onFrame` gets each line (without its newline), `onOversized` each frame over
   * the limit (dropped), `onUnreadable` the size of each line that is not UTF-8 text (dropped)
   * and its bytes (a view valid during the call),
   * `onMalformed` why bytes the framing cannot read were dropped, `onClose` the end.
   */
  start(
    onFrame: (frame: string) => void,
    onClose: (reason: string) => void,
    onOversized?: (frame: OversizedFrame) => void,
    onUnreadable?: (size: number, bytes: Buffer) => void,
    onMalformed?: (reason: string) => void,
  ): void;
  /** Queues one frame; resolves at once unless the outgoing buffer is full (then on drain). */
  write(frame: string): Promise<void> | undefined;
  /** Stops writing and releases what the transport holds (a spawned program is ended). */
  close(): Promise<void>;
  /** Stops delivering frames until `resume()` (the dispatcher's flow control). */
  pause(): void;
  resume(): void;
}

/** A transport over a readable and a writable byte stream. */
export class StreamTransport implements Transport {
  private closed = false;
  private closing: Promise<void> | null = null;
  /** While the output is backed up: settles on "drain", or when the output fails or closes. */
  private room: Promise<void> | undefined;
  /** Ends reading once (frames read so far delivered, then `onClose`); set by `start`. */
  private finish: ((reason: string) => void) | null = null;
  /** Why the stream was ended from outside before `start`, if it was. */
  private endedEarly: string | null = null;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly release: () => Promise<void> = async () => undefined,
    /** How messages are delimited: `NDJSON` (ACP, MCP) or `CONTENT_LENGTH` (LSP). */
    readonly framing: Framing = NDJSON,
  ) {}

  start(
    onFrame: (frame: string) => void,
    onClose: (reason: string) => void,
    onOversized?: (frame: OversizedFrame) => void,
    onUnreadable?: (size: number, bytes: Buffer) => void,
    onMalformed?: (reason: string) => void,
  ): void {
    const splitter = this.framing.splitter({ onFrame, onOversized, onUnreadable, onMalformed }, DEFAULT_FRAME_LIMIT);
    let ended = false;
    const end = (reason: string): void => {
      if (ended) return;
      ended = true;
      splitter.flush();
      onClose(reason);
    };
    this.finish = end;
    this.input.on("data", (chunk: Buffer) => splitter.push(chunk));
    this.input.on("end", () => end("the peer closed its output"));
    this.input.on("error", (error: Error) => end(`read failed: ${error.message}`));
    this.output.on("error", () => end("the peer closed its input"));
    if (this.endedEarly !== null) end(this.endedEarly);
  }

  /** Ends the stream from outside it (the program behind it exited, or could not start): the
   * frames read so far are delivered, then `onClose` gets `reason`, once. */
  protected endStream(reason: string): void {
    if (this.finish === null) this.endedEarly ??= reason;
    else this.finish(reason);
  }

  write(frame: string): Promise<void> | undefined {
    if (this.closed || this.output.destroyed) return undefined;
    if (this.output.write(this.framing.wrap(frame))) return undefined;
    // Every write made until "drain" shares one wait (one listener, not one per write), and the
    // wait never rejects: the output failing or closing ends the connection (see `start`), which
    // fails what is pending; a rejection here would be unhandled where a request does not await
    // its write.
    this.room ??= new Promise<void>((resolve) => {
      const output = this.output;
      const settle = (): void => {
        output.off("drain", settle);
        output.off("error", settle);
        output.off("close", settle);
        this.room = undefined;
        resolve();
      };
      output.on("drain", settle);
      output.on("error", settle);
      output.on("close", settle);
    });
    return this.room;
  }

  pause(): void {
    this.input.pause();
  }

  resume(): void {
    if (!this.closed) this.input.resume();
  }

  /** Every call resolves once the release is done (a spawned program's group ended). */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.output.end();
    this.input.pause();
    await this.release();
  }
}

/** This process's stdin and stdout (an agent started by an editor, a client started by an agent),
 * framed as NDJSON unless `framing` says otherwise (`CONTENT_LENGTH` for an LSP peer). */
export function stdioTransport(framing: Framing = NDJSON): Transport {
  return new StreamTransport(process.stdin, process.stdout, async () => undefined, framing);
}

/** Two connected in-memory transports (tests, and an agent and a client in one process). */
export function memoryPair(): [Transport, Transport] {
  const left = new MemoryTransport();
  const right = new MemoryTransport();
  left.peer = right;
  right.peer = left;
  return [left, right];
}

class MemoryTransport implements Transport {
  peer: MemoryTransport | null = null;
  private onFrame: ((frame: string) => void) | null = null;
  private onClose: ((reason: string) => void) | null = null;
  private backlog: string[] = []; // frames not delivered yet: before start(), or while paused
  private paused = false;
  private closed = false;

  start(onFrame: (frame: string) => void, onClose: (reason: string) => void): void {
    this.onFrame = onFrame;
    this.onClose = onClose;
    this.deliverBacklog();
  }

  write(frame: string): undefined {
    const peer = this.peer;
    if (this.closed || peer === null || peer.closed) return undefined;
    peer.backlog.push(frame);
    if (peer.backlog.length === 1) setImmediate(() => peer.deliverBacklog()); // never synchronous, as a pipe
    return undefined;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    setImmediate(() => this.deliverBacklog());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const peer = this.peer;
    setImmediate(() => {
      this.onClose?.("closed");
      peer?.onClose?.("the peer closed the connection");
    });
  }

  private deliverBacklog(): void {
    const deliver = this.onFrame;
    if (deliver === null) return;
    while (!this.paused && !this.closed && this.backlog.length > 0) deliver(this.backlog.shift() as string);
  }
}
