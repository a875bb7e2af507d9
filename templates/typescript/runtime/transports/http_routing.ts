/**
 * Which stream carries a message: the routing rules of ACP's remote transport, as pure functions.
 * Layer: transport. The same rules as the Python runtime's `transports/http_routing.py`, from the
 * RFD "Streamable HTTP & WebSocket Transport" (agentclientprotocol.com/rfds):
 *
 * - "`Acp-Connection-Id` (HTTP header) — Transport-level identifier returned by the server in the
 *   `initialize` response. Required on all HTTP requests after `initialize`".
 * - "`Acp-Session-Id` (HTTP header) — … Required on all session-scoped POST requests
 *   (`session/prompt`, `session/cancel`, permission responses, etc.) and on the session-scoped GET
 *   stream."
 * - "The connection-scoped stream … carries connection-level messages: responses to `session/new`
 *   and `session/load` …, and any server-initiated messages not tied to a specific session. The
 *   session-scoped stream … carries all messages for a single session: session update
 *   notifications, server-to-client requests like `request_permission`, and responses to
 *   session-scoped POSTs".
 *
 * The session of a message is its `params.sessionId` (requests and notifications) or the session
 * of the POST it answers, as in the official TypeScript SDK 2.4.0's `experimental/server`.
 */

import { readFrame } from "../envelope.js";
import type { WireId } from "../ids.js";

export const CONNECTION_ID = "acp-connection-id";
export const SESSION_ID = "acp-session-id";
export const EVENT_STREAM = "text/event-stream";
export const JSON_TYPE = "application/json";
/** The longest connection, session or request id kept track of (longer: 400). */
export const MAX_ID_LENGTH = 1024;

/** The client's methods that need `Acp-Session-Id` ("Session-scoped request missing
 * Acp-Session-Id? → 400 Bad Request"); those of the TypeScript SDK's server. */
export const SESSION_SCOPED_METHODS: ReadonlySet<string> = new Set([
  "session/cancel",
  "session/close",
  "session/delete",
  "session/fork",
  "session/load",
  "session/prompt",
  "session/resume",
  "session/set_config_option",
  "session/set_mode",
  "session/set_model",
]);

/** Requests answered on the connection stream although session-scoped: "responses to
 * `session/new` and `session/load` (which the client cannot receive on a session-scoped stream
 * because it does not yet have a `sessionId`)". */
export const CONNECTION_ROUTED_ANSWERS: ReadonlySet<string> = new Set(["session/load"]);

/** A session id (its session-scoped stream), or null: the connection-scoped stream. */
export type Route = string | null;

/** What routing needs of one message. */
export interface Envelope {
  readonly kind: "request" | "notification" | "response" | "other";
  /** The id's key (exact: `1` and `"1"` apart, large integers kept), when usable. */
  readonly key: string | null;
  /** The id as it travelled (`json` is what an answer writes back), when usable. */
  readonly id: WireId | null;
  readonly method: string | null;
  /** `params.sessionId` of a request or notification, `result.sessionId` of a response. */
  readonly session: string | null;
  /** The parsed message, an array for a batch, or `undefined` when the text is not JSON. */
  readonly value: unknown;
}

/** Reads one message's envelope (the dispatcher's own rules: envelope.ts). */
export function envelope(text: string): Envelope {
  const frame = readFrame(text);
  let value: unknown;
  switch (frame.kind) {
    case "request":
      return { kind: "request", key: frame.id.key, id: frame.id, method: frame.method, session: sessionOf(frame.params), value: frame.params };
    case "notification":
      return { kind: "notification", key: null, id: null, method: frame.method, session: sessionOf(frame.params), value: frame.params };
    case "response":
      return { kind: "response", key: frame.id?.key ?? null, id: frame.id, method: null, session: sessionOf(frame.result), value: frame.result };
    case "invalid":
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      return { kind: "other", key: frame.id?.key ?? null, id: frame.id, method: null, session: null, value };
    default:
      return { kind: "other", key: null, id: null, method: null, session: null, value: undefined };
  }
}

function sessionOf(holder: unknown): string | null {
  if (typeof holder !== "object" || holder === null || Array.isArray(holder)) return null;
  const session = (holder as { sessionId?: unknown }).sessionId;
  return typeof session === "string" ? session : null;
}

/** A client's HTTP request refused: answered `status` with this one-line message. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The session a client's request or notification belongs to (null: the connection); `Refused`
 * (400) when its headers and body disagree. "POST requests for session-scoped operations MUST
 * include both `Acp-Connection-Id` and `Acp-Session-Id` headers."
 */
export function clientMessageRoute(message: Envelope, headerSession: string | null): Route {
  if (headerSession === null) {
    if (message.session !== null || SESSION_SCOPED_METHODS.has(message.method ?? "")) {
      throw new Refused(400, "Missing Acp-Session-Id");
    }
    return null;
  }
  if (message.session !== null && message.session !== headerSession) {
    throw new Refused(400, "Acp-Session-Id does not match params.sessionId");
  }
  return headerSession;
}

/** Where the answer to a client's request goes: with the request's session, except the requests
 * answered on the connection stream. */
export function answerRoute(message: Envelope, route: Route): Route {
  return CONNECTION_ROUTED_ANSWERS.has(message.method ?? "") ? null : route;
}
