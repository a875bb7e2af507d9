/**
 * Listening on a port: a node `http` server in front of an `AcpHttpServer`, with `ws`'s
 * `WebSocketServer` for upgrades. Layer: transport. Bound to 127.0.0.1 unless told otherwise
 * (a remote agent is reachable from elsewhere only when asked); TLS belongs to a reverse proxy in
 * front (docs/transports.md), or pass `createServer` from `node:https` with its options.
 */

import { createServer, type Server } from "node:http";
import { Server as TlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { DEFAULT_FRAME_LIMIT } from "./framing.js";
import { AcpHttpServer, type AcpHttpServerOptions, type Served, type WebSocketUpgrader } from "./http_server.js";
import type { Transport } from "./transport.js";

export interface ListenOptions extends AcpHttpServerOptions {
  /** The address to bind; default 127.0.0.1. */
  readonly host?: string;
  /** The port; default 0 (any free one: read `url`). */
  readonly port?: number;
  /** Serve WebSocket upgrades (needs the `ws` package); default true. */
  readonly webSocket?: boolean;
  /** Makes the node server (`https.createServer` bound to options for TLS); default `http`'s. */
  readonly createServer?: () => Server;
}

/** A listening ACP server. */
export interface Listening {
  /** `http://host:port/acp` (the endpoint). */
  readonly url: string;
  readonly acp: AcpHttpServer;
  readonly server: Server;
  /** Stops listening, ends every connection and waits for them. */
  close(): Promise<void>;
}

const WS_MISSING = "serving WebSocket needs the ws package: npm install ws (or pass webSocket: false)";

/** `ws`'s `WebSocketServer` for upgrades, or one clear error naming the package. */
export async function webSocketUpgrader(maxPayload: number): Promise<WebSocketUpgrader> {
  let ws: typeof import("ws");
  try {
    ws = await import("ws");
  } catch {
    throw new Error(WS_MISSING);
  }
  const WebSocketServer = ws.WebSocketServer ?? (ws as unknown as { default: typeof import("ws") }).default.WebSocketServer;
  return new WebSocketServer({ noServer: true, maxPayload }) as unknown as WebSocketUpgrader;
}

/** Serves `connect` (one ACP connection per HTTP connection) at `http://host:port/acp`. */
export async function listenHttp(connect: (transport: Transport) => Served, options: ListenOptions = {}): Promise<Listening> {
  const frameLimit = options.frameLimit;
  let webSocketServer = options.webSocketServer;
  if (webSocketServer === undefined && options.webSocket !== false) {
    webSocketServer = await webSocketUpgrader(frameLimit ?? DEFAULT_FRAME_LIMIT);
  }
  const acp = new AcpHttpServer(connect, webSocketServer === undefined ? options : { ...options, webSocketServer });
  const server = options.createServer?.() ?? createServer();
  server.on("request", acp.handleRequest);
  server.on("upgrade", acp.handleUpgrade);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const scheme = server instanceof TlsServer ? "https" : "http";
  return {
    url: `${scheme}://${shown}:${address.port}${acp.policy.path ?? ""}`,
    acp,
    server,
    async close() {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await acp.close();
      server.closeAllConnections();
      await stopped;
    },
  };
}
