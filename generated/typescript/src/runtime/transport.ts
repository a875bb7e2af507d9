// Copied by acp-codegen from templates/typescript/runtime/transport.ts: edit it there, then run:
//   make generate
/**
 * NDJSON transports: one JSON-RPC message per line, UTF-8, over this process's stdio, a spawned
 * program's stdio, or an in-memory pair. Layer: transport (bytes ↔ frames); it knows nothing of
 * JSON-RPC.
 *
 * A frame may be up to `DEFAULT_FRAME_LIMIT` bytes; a longer one is dropped unread (its first
 * bytes and size are reported, the connection stays up) and memory stays bounded whatever the peer
 * sends. A spawned program's transport is in process.ts.
 */

import { isUtf8 } from "node:buffer";
import type { Readable, Writable } from "node:stream";

/** Longest accepted frame, in bytes (50 MiB, as the Python runtime). */
export const DEFAULT_FRAME_LIMIT = 50 * 1024 * 1024;
/** How much of a dropped frame is kept, to find its id. */
const HEAD_BYTES = 256;

/** A frame over the limit, dropped unread: its first bytes and its size. */
export interface OversizedFrame {
  readonly head: string;
  readonly size: number;
}

/** How the dispatcher meets the bytes: frames in (`onFrame`, then `onClose` once), frames out. */
export interface Transport {
  /**
   * Starts reading; `onFrame` gets each line (without its newline), `onOversized` each frame over
   * the limit (dropped), `onUnreadable` the size of each line that is not UTF-8 text (dropped),
   * `onClose` the end.
   */
  start(
    onFrame: (frame: string) => void,
    onClose: (reason: string) => void,
    onOversized?: (frame: OversizedFrame) => void,
    onUnreadable?: (size: number) => void,
  ): void;
  /** Queues one frame; resolves at once unless the outgoing buffer is full (then on drain). */
  write(frame: string): Promise<void> | undefined;
  /** Stops writing and releases what the transport holds (a spawned program is ended). */
  close(): Promise<void>;
  /** Stops delivering frames until `resume()` (the dispatcher's flow control). */
  pause(): void;
  resume(): void;
}

const NEWLINE = 0x0a;

/** Splits a byte stream into lines; a frame split across chunks is joined first, a frame over
 * `limit` bytes is dropped as it streams (only its head is kept), and a line that is not UTF-8
 * text goes to `onUnreadable` (decoding it would put U+FFFD in place of its bad bytes). */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private dropping: { head: string; size: number } | null = null;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (frame: OversizedFrame) => void = () => undefined,
    private readonly limit = DEFAULT_FRAME_LIMIT,
    private readonly onUnreadable: (size: number) => void = () => undefined,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    while (end !== -1) {
      this.line(chunk.subarray(start, end));
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** The bytes after the last newline, as a last frame (a peer that ends without one). */
  flush(): void {
    if (this.pending.length > 0 || this.dropping !== null) this.line(Buffer.alloc(0));
  }

  private line(piece: Buffer): void {
    if (this.dropping !== null) {
      const { head, size } = this.dropping;
      this.dropping = null;
      this.onOversized({ head, size: size + piece.length });
      return;
    }
    let line = piece;
    if (this.pending.length > 0) {
      this.pending.push(piece);
      line = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingSize = 0;
    }
    if (line.length > this.limit) {
      this.onOversized({ head: line.toString("utf8", 0, HEAD_BYTES), size: line.length });
      return;
    }
    const length = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    if (length === 0) return;
    const text = line.toString("utf8", 0, length);
    // Bad bytes decode to U+FFFD: only a line that has one is checked (the check costs more than
    // the search, and a one-byte string cannot hold U+FFFD at all).
    if (text.includes("\ufffd") && !isUtf8(line)) this.onUnreadable(length);
    else this.onLine(text);
  }

  private keep(piece: Buffer): void {
    if (this.dropping !== null) {
      this.dropping.size += piece.length;
      return;
    }
    this.pending.push(piece);
    this.pendingSize += piece.length;
    if (this.pendingSize > this.limit) {
      const joined = Buffer.concat(this.pending);
      this.dropping = { head: joined.toString("utf8", 0, HEAD_BYTES), size: joined.length };
      this.pending = [];
      this.pendingSize = 0;
    }
  }
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
  ) {}

  start(
    onFrame: (frame: string) => void,
    onClose: (reason: string) => void,
    onOversized?: (frame: OversizedFrame) => void,
    onUnreadable?: (size: number) => void,
  ): void {
    const splitter = new LineSplitter(onFrame, onOversized, DEFAULT_FRAME_LIMIT, onUnreadable);
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
    if (this.output.write(frame + "\n")) return undefined;
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

/** This process's stdin and stdout (an agent started by an editor, a client started by an agent). */
export function stdioTransport(): Transport {
  return new StreamTransport(process.stdin, process.stdout);
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
