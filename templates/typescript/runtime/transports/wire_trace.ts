/**
 * Recording a connection when `ACP_TRACE=FILE` is set (not W3C trace context: that is
 * trace_context.ts). Layer: between the transport and the dispatcher: a `Transport` wrapping the
 * connection's own, seeing each frame read (before the dispatcher routes it) and each frame
 * written. The recording is Python's `acp_protocol.trace` format (docs/trace.md): a header, then
 * one line per frame with its time, direction and JSON value (its text as `raw` when it is not
 * JSON).
 *
 * Directions are the recorder's: `sent` is toward the agent. "Clients MUST initialize the
 * connection" (ACP initialization.mdx), so the side that writes the first frame is the client
 * (its writes are `sent`) and the side that reads first the agent (its writes `received`); the
 * header names the side. `{pid}` and `{n}` in FILE become the process id and the connection's
 * number in this process; without `{n}` the second connection writes FILE with `.2` before its
 * extension, and so on. A FILE that cannot be opened is one warning line on stderr, and the
 * connection goes on unrecorded. The wire never waits for the file: records go to a write stream
 * (written by libuv's threads), which the connection's close flushes.
 */

import { closeSync, createWriteStream, openSync, type WriteStream } from "node:fs";
import { extname } from "node:path";
import type { OversizedFrame, Transport } from "./transport.js";

export const TRACE_ENVIRONMENT = "ACP_TRACE";

let traceNumbers = 0;

/** The file of this process's connection `n` (1-based) under `template`. */
export function tracePath(template: string, n: number, pid: number): string {
  let path = template.replaceAll("{pid}", String(pid)).replaceAll("{n}", String(n));
  if (n > 1 && !template.includes("{n}")) {
    const extension = extname(path);
    path = `${path.slice(0, path.length - extension.length)}.${n}${extension}`;
  }
  return path;
}

/** `transport` recorded when ACP_TRACE is set; `transport` itself otherwise. */
export function traceFromEnvironment(transport: Transport): Transport {
  const template = process.env[TRACE_ENVIRONMENT];
  if (template === undefined || template === "") return transport;
  const path = tracePath(template, ++traceNumbers, process.pid);
  let fd: number;
  try {
    fd = openSync(path, "w");
  } catch (failure) {
    // "ENOENT: no such file or directory, open '…'": the system's words, as Python and Go print them.
    const words = /^\w+: ([^,]+),/.exec((failure as Error).message)?.[1] ?? String(failure);
    const reason = words.charAt(0).toUpperCase() + words.slice(1);
    process.stderr.write(`acp: ${TRACE_ENVIRONMENT}: cannot write ${path}: ${reason}; the connection goes on unrecorded\n`);
    return transport;
  }
  return new TracedTransport(transport, fd);
}

class TracedTransport implements Transport {
  private readonly started = performance.now();
  private readonly startedAt = new Date().toISOString().replace("Z", "+00:00");
  private side: "client" | "agent" | null = null;
  private readonly out: WriteStream;
  private ended: Promise<void> | null = null;

  constructor(
    private readonly inner: Transport,
    fd: number,
  ) {
    this.out = createWriteStream("", { fd, autoClose: true });
    this.out.on("error", (failure: Error) => {
      process.stderr.write(`acp: ${TRACE_ENVIRONMENT}: writing the recording failed: ${failure.message}; the connection goes on unrecorded\n`);
      this.ended = Promise.resolve();
      try {
        closeSync(fd);
      } catch {
        // already closed by the stream
      }
    });
  }

  start(
    onFrame: (frame: string) => void,
    onClose: (reason: string) => void,
    onOversized?: (frame: OversizedFrame) => void,
    onUnreadable?: (size: number, bytes: Buffer) => void,
    onMalformed?: (reason: string) => void,
  ): void {
    this.inner.start(
      (frame) => {
        this.record(frame, false);
        onFrame(frame);
      },
      onClose,
      (frame) => {
        this.record(frame.head, false, frame.size);
        onOversized?.(frame);
      },
      (size, bytes) => {
        // A line that is not UTF-8 is recorded as "hex:" and its bytes (Python's `raw_text`).
        this.record(`hex:${bytes.toString("hex")}`, false, 0, true);
        onUnreadable?.(size, bytes);
      },
      onMalformed,
    );
  }

  write(frame: string): Promise<void> | undefined {
    const written = this.inner.write(frame);
    this.record(frame, true);
    return written;
  }

  async close(): Promise<void> {
    await this.inner.close();
    if (this.ended === null) {
      if (this.side === null) this.header(null);
      const out = this.out;
      this.ended = new Promise<void>((resolve) => out.end(resolve));
    }
    await this.ended;
  }

  pause(): void {
    this.inner.pause();
  }

  resume(): void {
    this.inner.resume();
  }

  private header(side: "client" | "agent" | null): void {
    this.side = side;
    // acpTrace: the recording format's version (Python's acp_protocol.trace.frames.FORMAT_VERSION)
    const header = { acpTrace: 2, program: process.argv, started: this.startedAt, pid: process.pid, side };
    this.out.write(`${JSON.stringify(header)}\n`);
  }

  /** One frame: written by this side (`outgoing`) or read; `dropped`: a frame over the limit,
   * `text` its head; `raw`: `text` is the raw form of a line that is not UTF-8. */
  private record(text: string, outgoing: boolean, dropped = 0, raw = false): void {
    if (this.ended !== null) return;
    if (this.side === null) this.header(outgoing ? "client" : "agent");
    const direction = outgoing === (this.side === "client") ? "sent" : "received";
    const t = ((performance.now() - this.started) / 1000).toFixed(4);
    let value = dropped === 0 && !raw && !text.includes("\r") ? text : null;
    if (value !== null && !outgoing) {
      try {
        JSON.parse(value);
      } catch {
        value = null;
      }
    }
    const body = value !== null ? `"json":${value}` : `"raw":${JSON.stringify(text)}${dropped ? `,"size":${dropped}` : ""}`;
    this.out.write(`{"t":${t},"dir":"${direction}",${body}}\n`);
  }
}
