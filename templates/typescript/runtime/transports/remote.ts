/**
 * A remote agent by URL: the client side of ACP's remote transport, chosen by the URL's scheme.
 * Layer: transport. `openRemote("http(s)://host/acp")` speaks Streamable HTTP (http_client.ts),
 * `openRemote("ws(s)://host/acp")` a WebSocket (ws_client.ts); either is a `Transport` like a
 * spawned agent's stdin and stdout, so the same typed client runs on it (`connectRemoteAgent` in
 * each edition's client module). The libraries are optional peers: without them the package
 * still loads, and opening a remote agent fails with one line naming the package to install.
 */

import { DEFAULT_FRAME_LIMIT } from "./framing.js";
import { StreamableHttpTransport } from "./http_client.js";
import type { Transport } from "./transport.js";
import { openWebSocket } from "./ws_client.js";

export interface RemoteOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Sent with every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The largest message read. */
  readonly frameLimit?: number;
}

const SSE_MISSING = "http:// agents need the eventsource-parser package: npm install eventsource-parser";

/** A transport to the ACP agent at `url` (`http://`, `https://`, `ws://` or `wss://`). */
export async function openRemote(url: string, options: RemoteOptions = {}): Promise<Transport> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const frameLimit = options.frameLimit ?? DEFAULT_FRAME_LIMIT;
  const scheme = new URL(url).protocol;
  if (scheme === "http:" || scheme === "https:") {
    let parser: typeof import("eventsource-parser");
    try {
      parser = await import("eventsource-parser");
    } catch {
      throw new Error(SSE_MISSING);
    }
    return new StreamableHttpTransport(url, parser.createParser, { headers, frameLimit });
  }
  if (scheme === "ws:" || scheme === "wss:") return openWebSocket(url, headers, frameLimit);
  throw new Error(`a remote agent's URL starts with http(s):// or ws(s)://, not ${JSON.stringify(url)}`);
}
