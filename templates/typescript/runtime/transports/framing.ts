/**
 * How messages are delimited on a byte stream: NDJSON lines (ACP, MCP over stdio; the default) or
 * the LSP base protocol's `Content-Length` headers. Layer: transport (bytes ↔ frames); it knows
 * nothing of JSON-RPC. The same two framings as the Python runtime's transports/framing.py.
 *
 * A `Framing` makes the splitter that cuts a stream's bytes into message payloads and wraps one
 * outgoing payload. Either way a payload may be up to `DEFAULT_FRAME_LIMIT` bytes; a longer one is
 * dropped as it streams (its first bytes and size are reported), so memory stays bounded whatever
 * the peer sends, and a payload that is not UTF-8 is reported, not decoded with U+FFFD.
 */

import { isUtf8 } from "node:buffer";

/** Longest accepted frame, in bytes (50 MiB, as the Python runtime). */
export const DEFAULT_FRAME_LIMIT = 50 * 1024 * 1024;
/** How much of a dropped frame is kept, to find its id. */
const HEAD_BYTES = 256;

/** A frame over the limit, dropped unread: its first bytes and its size. */
export interface OversizedFrame {
  readonly head: string;
  readonly size: number;
}

/** Where a splitter hands what it cuts out of the stream. */
export interface SplitterSinks {
  /** Each payload, as text (a line without its newline, or a `Content-Length` body). */
  readonly onFrame: (frame: string) => void;
  /** Each payload over the limit (dropped). */
  readonly onOversized?: ((frame: OversizedFrame) => void) | undefined;
  /** The size of each payload that is not UTF-8 text (dropped), and its bytes (a view, valid
   * only during the call: ACP_TRACE records them). */
  readonly onUnreadable?: ((size: number, bytes: Buffer) => void) | undefined;
  /** Bytes dropped because they are not a message the framing can read (a header without a usable
   * `Content-Length`, a stream ended inside a message), with why. */
  readonly onMalformed?: ((reason: string) => void) | undefined;
}

/** Cuts a byte stream into payloads. */
export interface Splitter {
  push(chunk: Buffer): void;
  /** The end of the stream: what is left is delivered (NDJSON's last line) or reported. */
  flush(): void;
}

/** One way of delimiting messages. */
export interface Framing {
  readonly name: "ndjson" | "content-length";
  splitter(sinks: SplitterSinks, limit?: number): Splitter;
  /** One outgoing payload with its delimiting. */
  wrap(frame: string): string;
}

/** A payload's bytes as text, or null (and `onUnreadable`) when they are not UTF-8: "JSON text
 * exchanged between systems … MUST be encoded using UTF-8" (RFC 8259 §8.1). */
function decodeText(bytes: Buffer, length: number, sinks: SplitterSinks): string | null {
  const text = bytes.toString("utf8", 0, length);
  // Bad bytes decode to U+FFFD: only a payload that has one is checked (the check costs more than
  // the search, and a one-byte string cannot hold U+FFFD at all).
  if (text.includes("\ufffd") && !isUtf8(bytes.subarray(0, length))) {
    sinks.onUnreadable?.(length, bytes.subarray(0, length));
    return null;
  }
  return text;
}

const NEWLINE = 0x0a;

/** Splits a byte stream into lines; a frame split across chunks is joined first, a frame over
 * `limit` bytes is dropped as it streams (only its head is kept), and a line that is not UTF-8
 * text goes to `onUnreadable` (decoding it would put U+FFFD in place of its bad bytes). */
export class LineSplitter implements Splitter {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private dropping: { head: string; size: number } | null = null;
  private readonly sinks: SplitterSinks;

  constructor(
    onLine: (line: string) => void,
    onOversized: (frame: OversizedFrame) => void = () => undefined,
    private readonly limit = DEFAULT_FRAME_LIMIT,
    onUnreadable: (size: number, bytes: Buffer) => void = () => undefined,
  ) {
    this.sinks = { onFrame: onLine, onOversized, onUnreadable };
  }

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
      this.sinks.onOversized?.({ head, size: size + piece.length });
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
      this.sinks.onOversized?.({ head: line.toString("utf8", 0, HEAD_BYTES), size: line.length });
      return;
    }
    const length = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    if (length === 0) return;
    const text = decodeText(line, length, this.sinks);
    if (text !== null) this.sinks.onFrame(text);
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

const HEADER_END = Buffer.from("\r\n\r\n");
/** A header part longer than this without its end is not LSP's (it holds one or two short fields). */
const HEADER_LIMIT = 8192;
const LENGTH = /^content-length:[ \t]*(\d+)[ \t]*$/i;

/**
 * Splits a stream of LSP base protocol messages: "The header part consists of header fields"
 * ("Content-Length … The length of the content part in bytes. This header is required."), "Each
 * header field is terminated by '\r\n'", "The header part and the content part are separated by a
 * '\r\n'". In time linear in the bytes read: a body's chunks are joined once, when it is whole.
 *
 * A header part without a usable `Content-Length` is dropped and reported (`onMalformed`): the
 * next bytes are read as a header part again, so the stream stays usable. Header fields other
 * than `Content-Length` (`Content-Type`) are ignored: the content is UTF-8 JSON ("utf-8 … is the
 * default").
 */
export class ContentLengthSplitter implements Splitter {
  /** The header part read so far (while reading headers). */
  private header: Buffer = Buffer.alloc(0);
  /** The body awaited (its length, the chunks read so far); null while reading headers. */
  private body: { need: number; chunks: Buffer[]; size: number } | null = null;
  /** An oversized body being skipped: its head, its size, the bytes still to skip. */
  private dropping: { head: Buffer; size: number; left: number } | null = null;

  constructor(
    private readonly sinks: SplitterSinks,
    private readonly limit = DEFAULT_FRAME_LIMIT,
  ) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.dropping !== null) at = this.skip(chunk, at);
      else if (this.body !== null) at = this.collect(this.body, chunk, at);
      else at = this.readHeader(chunk, at);
    }
  }

  flush(): void {
    const inside = this.body !== null || this.dropping !== null || this.header.toString("latin1").trim() !== "";
    if (inside) this.sinks.onMalformed?.("the stream ended inside a message");
    this.header = Buffer.alloc(0);
    this.body = null;
    this.dropping = null;
  }

  /** Reads header bytes from `chunk` at `at`; where the next part starts. */
  private readHeader(chunk: Buffer, at: number): number {
    const kept = this.header.length;
    const data = kept === 0 ? chunk.subarray(at) : Buffer.concat([this.header, chunk.subarray(at)]);
    const end = data.indexOf(HEADER_END);
    if (end === -1) {
      if (data.length > HEADER_LIMIT) {
        this.sinks.onMalformed?.(`a header part of over ${HEADER_LIMIT} bytes without its end was dropped`);
        this.header = Buffer.from(data.subarray(data.length - (HEADER_END.length - 1)));
      } else {
        this.header = Buffer.from(data); // a copy: the chunk is not kept alive by a few bytes
      }
      return chunk.length;
    }
    this.header = Buffer.alloc(0);
    const need = contentLength(data.toString("latin1", 0, end));
    const next = at + end + HEADER_END.length - kept;
    if (need === null) {
      this.sinks.onMalformed?.("a message header without a usable Content-Length was dropped");
    } else if (need > this.limit) {
      this.dropping = { head: Buffer.alloc(0), size: need, left: need };
    } else {
      this.body = { need, chunks: [], size: 0 };
      if (need === 0) this.collect(this.body, chunk, next);
    }
    return next;
  }

  /** Adds body bytes; delivers the body once whole. */
  private collect(body: { need: number; chunks: Buffer[]; size: number }, chunk: Buffer, at: number): number {
    const take = Math.min(body.need - body.size, chunk.length - at);
    if (take > 0) body.chunks.push(chunk.subarray(at, at + take));
    body.size += take;
    if (body.size === body.need) {
      this.body = null;
      const whole = body.chunks.length === 1 ? (body.chunks[0] as Buffer) : Buffer.concat(body.chunks, body.size);
      const text = decodeText(whole, whole.length, this.sinks);
      if (text !== null) this.sinks.onFrame(text);
    }
    return at + take;
  }

  /** Skips an oversized body's bytes, keeping its head. */
  private skip(chunk: Buffer, at: number): number {
    const dropping = this.dropping as { head: Buffer; size: number; left: number };
    const take = Math.min(dropping.left, chunk.length - at);
    if (dropping.head.length < HEAD_BYTES) {
      dropping.head = Buffer.concat([dropping.head, chunk.subarray(at, at + Math.min(take, HEAD_BYTES - dropping.head.length))]);
    }
    dropping.left -= take;
    if (dropping.left === 0) this.dropped();
    return at + take;
  }

  private dropped(): void {
    const { head, size } = this.dropping as { head: Buffer; size: number };
    this.dropping = null;
    this.sinks.onOversized?.({ head: head.toString("utf8"), size });
  }
}

/** The `Content-Length` of a header part (header names are case-insensitive), or null. */
function contentLength(header: string): number | null {
  for (const field of header.split("\r\n")) {
    const match = LENGTH.exec(field);
    if (match !== null) return Number(match[1]);
  }
  return null;
}

/** One JSON message per line (ACP, MCP over stdio): the default. */
export const NDJSON: Framing = {
  name: "ndjson",
  splitter: (sinks, limit) => new LineSplitter(sinks.onFrame, sinks.onOversized, limit, sinks.onUnreadable),
  wrap: (frame) => frame + "\n",
};

/** The LSP base protocol: `Content-Length: N\r\n\r\n` then N bytes of JSON (UTF-8). */
export const CONTENT_LENGTH: Framing = {
  name: "content-length",
  splitter: (sinks, limit) => new ContentLengthSplitter(sinks, limit),
  wrap: (frame) => `Content-Length: ${Buffer.byteLength(frame)}\r\n\r\n${frame}`,
};
