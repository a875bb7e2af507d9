// Copied by acp-codegen from templates/typescript/runtime/cancellation.ts: edit it there, then run:
//   make generate
/**
 * The three cancellation dialects: how one protocol family cancels a request. Layer: dispatcher
 * (the connection's cancellation core reads one of them; the same policies as the Python
 * runtime's cancellation.py).
 *
 * | dialect | notification | id key | the receiver answers the cancelled request? |
 * | --- | --- | --- | --- |
 * | ACP (default) | `$/cancel_request` | `requestId` | yes: a (partial) result or -32800 |
 * | LSP | `$/cancelRequest` | `id` | yes: a (partial) result or -32800 |
 * | MCP | `notifications/cancelled` | `requestId` | no ("Not send a response") |
 *
 * A connection speaks one dialect (`ConnectionOptions.dialect`): another dialect's cancel
 * notification is an ordinary notification, handed to the router.
 */

import { memberText, readId, stringId, type WireId } from "./ids.js";

export interface CancelDialect {
  readonly name: "acp" | "lsp" | "mcp";
  /** The cancel notification's method. */
  readonly method: string;
  /** The params member naming the cancelled request. */
  readonly idKey: string;
  /** Whether the receiver still answers a request it cancelled at the peer's demand. */
  readonly answersCancelled: boolean;
  /** The params member carrying a human-readable reason, if the dialect has one. */
  readonly reasonKey: string | null;
  /** Methods that are never cancelled, either way. */
  readonly uncancellable: ReadonlySet<string>;
  /** The error of a request the receiver cancels on its own (not at the peer's demand), when the
   * dialect tells it from the peer's cancel; null: -32800 like any. */
  readonly selfCancel: { readonly code: number; readonly message: string } | null;
}

/** ACP v1: "The receiver MUST send one of these responses for the original request: A valid
 * response with appropriate data (such as partial results or cancellation marker) / An error
 * response with code `-32800`" (cancellation.mdx). */
export const ACP: CancelDialect = {
  name: "acp",
  method: "$/cancel_request",
  idKey: "requestId",
  answersCancelled: true,
  reasonKey: null,
  uncancellable: new Set(),
  selfCancel: null,
};

/** LSP 3.17: "A request that got canceled still needs to return from the server and send a
 * response back. It can not be left open / hanging."; before the `InitializeResult` "the client
 * must not send any additional requests or notifications to the server", so `initialize` is never
 * cancelled; `ServerCancelled` (-32802): "The server cancelled the request. This error code should
 * only be used for requests that explicitly support being server cancellable." */
export const LSP: CancelDialect = {
  name: "lsp",
  method: "$/cancelRequest",
  idKey: "id",
  answersCancelled: true,
  reasonKey: null,
  uncancellable: new Set(["initialize"]),
  selfCancel: { code: -32802, message: "Server cancelled" },
};

/** MCP 2025-11-25: receivers SHOULD "Not send a response for the cancelled request"; "The sender
 * of the cancellation notification SHOULD ignore any response to the request that arrives
 * afterward"; "The `initialize` request MUST NOT be cancelled by clients"; "Both parties SHOULD
 * log cancellation reasons". */
export const MCP: CancelDialect = {
  name: "mcp",
  method: "notifications/cancelled",
  idKey: "requestId",
  answersCancelled: false,
  reasonKey: "reason",
  uncancellable: new Set(["initialize"]),
  selfCancel: null,
};

/** The params of the dialect's cancel notification for our request `id`. */
export function cancelParams(dialect: CancelDialect, id: number, reason: string | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = { [dialect.idKey]: id };
  if (reason !== undefined && dialect.reasonKey !== null) params[dialect.reasonKey] = reason;
  return params;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The exact id a received cancel notification names (read from the frame's `text`), or null
 * when it names none usable ("unknown, finished or malformed ids are ignored"). */
export function cancelledId(dialect: CancelDialect, text: string, params: unknown): WireId | null {
  if (!isObject(params)) return null;
  const value = params[dialect.idKey];
  if (typeof value === "string") return stringId(JSON.stringify(value), value);
  if (typeof value !== "number") return null;
  const paramsText = memberText(text, 0, "params");
  return paramsText === null ? null : readId(paramsText, 0, dialect.idKey, value);
}

/** The reason a received cancel notification gives, if the dialect has one and it is a string. */
export function cancelReason(dialect: CancelDialect, params: unknown): string | undefined {
  if (dialect.reasonKey === null || !isObject(params)) return undefined;
  const reason = params[dialect.reasonKey];
  return typeof reason === "string" ? reason : undefined;
}
