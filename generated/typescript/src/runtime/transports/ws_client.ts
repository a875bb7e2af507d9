// Copied by acp-codegen from templates/typescript/runtime/transports/ws_client.ts: edit it there, then run:
//   make generate
/**
 * The client of ACP's WebSocket transport: a `Transport` over one WebSocket of JSON-RPC text
 * frames ("All messages are WebSocket text frames containing JSON-RPC. Binary frames are
 * ignored"). Layer: transport. As the Python runtime's `transports/ws_client.py`. The socket is
 * `ws`'s (the optional peer dependency: it sends headers, so a bearer token works) or, without
 * it, node's own `WebSocket` (global from node 22 on; node 20 needs `--experimental-websocket`).
 */

import { Inbox } from "./queues.js";
import type { OversizedFrame, Transport } from "./transport.js";

/** The subset of the WHATWG `WebSocket` used here (both `ws` and node's own have it). */
export interface ClientWebSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close" | "error" | "message", listener: (event: { data?: unknown; code?: number; reason?: string; message?: string }) => void): void;
}

type WebSocketConstructor = new (
  url: string,
  options?: { headers?: Record<string, string>; maxPayload?: number; perMessageDeflate?: boolean },
) => ClientWebSocket;

/** Bytes buffered in the socket above which `write` makes the writer wait. */
const HIGH_WATER = 1024 * 1024;
const OPEN = 1;

/** The WebSocket class: `ws`'s when installed, else node's own; one clear error without either. */
export async function webSocketClass(): Promise<WebSocketConstructor> {
  try {
    const ws = await import("ws");
    return (ws.WebSocket ?? (ws as unknown as { default: unknown }).default) as unknown as WebSocketConstructor;
  } catch {
    const own = (globalThis as { WebSocket?: unknown }).WebSocket;
    if (own !== undefined) return own as WebSocketConstructor;
    throw new Error("ws:// agents need a WebSocket: npm install ws (or node 22+, or node --experimental-websocket)");
  }
}

/** A `Transport` over an open WebSocket. */
export class WebSocketTransport implements Transport {
  private readonly inbox: Inbox;
  private closed = false;
  private closing: Promise<void> | null = null;
  private reason = "the agent closed the WebSocket";

  constructor(
    private readonly socket: ClientWebSocket,
    frameLimit: number,
  ) {
    this.inbox = new Inbox(frameLimit);
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") this.inbox.push(event.data); // "Binary frames are ignored"
    });
    socket.addEventListener("close", (event) => {
      if (!this.closed) this.reason = `the agent closed the WebSocket (${event.code ?? "no code"}${event.reason ? `: ${event.reason}` : ""})`;
      this.inbox.end();
    });
    socket.addEventListener("error", (event) => {
      if (!this.closed) this.reason = `the WebSocket failed: ${event.message ?? "error"}`;
      this.inbox.end();
    });
  }

  start(onFrame: (frame: string) => void, onClose: (reason: string) => void, _onOversized?: (frame: OversizedFrame) => void): void {
    this.inbox.start({ onFrame, onEnd: () => onClose(this.reason) });
  }

  write(frame: string): Promise<void> | undefined {
    if (this.closed || this.socket.readyState !== OPEN) return undefined;
    this.socket.send(frame);
    if (this.socket.bufferedAmount <= HIGH_WATER) return undefined;
    return this.drained();
  }

  pause(): void {
    this.inbox.pause();
  }

  resume(): void {
    this.inbox.resume();
  }

  /** Closes the socket (1000) and waits for its close (5 s at most). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.reason = "closed";
      if (this.socket.readyState <= OPEN) {
        const gone = new Promise<void>((resolve) => this.socket.addEventListener("close", () => resolve()));
        this.socket.close(1000);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)))]);
        clearTimeout(timer);
      }
      this.inbox.end();
    })();
    return this.closing;
  }

  /** The WHATWG socket has no "drain" event: polls `bufferedAmount` until it is low again. */
  private async drained(): Promise<void> {
    while (!this.closed && this.socket.readyState === OPEN && this.socket.bufferedAmount > HIGH_WATER) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Opens a WebSocket to `url`; resolves once it is open, rejects (one line) when refused. */
export async function openWebSocket(url: string, headers: Record<string, string>, frameLimit: number): Promise<WebSocketTransport> {
  const WebSocket = await webSocketClass();
  // No permessage-deflate (ws offers it by default): ACP frames are small JSON, and compressing
  // each one halved round trips against a server that accepts it (as the Python client).
  const socket = new WebSocket(url, { headers, maxPayload: frameLimit, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve());
    socket.addEventListener("error", (event) => reject(new Error(`${url}: the WebSocket was refused: ${event.message ?? "error"}`)));
    socket.addEventListener("close", (event) => reject(new Error(`${url}: the WebSocket closed before it opened (${event.code ?? "no code"})`)));
  });
  return new WebSocketTransport(socket, frameLimit);
}
