// Copied by acp-codegen from templates/typescript/runtime/errors.ts: edit it there, then run:
//   make generate
/**
 * JSON-RPC errors: the codes, the error a request rejects with, and the one mapping from a
 * handler's failure to the error object it is answered with. Layer: dispatcher.
 */

import { DecodeError } from "./decoding.js";

export type RequestId = number | string | null;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** ACP: "request cancellation uses -32800 from the range LSP reserves (-32899 to -32800)". */
export const REQUEST_CANCELLED = -32800;

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC error: what a request rejects with when the peer answers one, and what a handler
 * throws to answer with one. */
export class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RequestError";
  }

  static methodNotFound(method: string): RequestError {
    return new RequestError(METHOD_NOT_FOUND, "Method not found", { method });
  }

  /** `-32800`, with the request's id in `data` (the official TypeScript SDK's shape). */
  static cancelled(requestId: RequestId): RequestError {
    return new RequestError(REQUEST_CANCELLED, "Request cancelled", { requestId });
  }

  toObject(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The connection closed (the peer went away or `close()` was called) before the answer came. */
export class ConnectionClosed extends Error {
  constructor(readonly reason: string) {
    super(`ACP connection closed: ${reason}`);
    this.name = "ConnectionClosed";
  }
}

/** An error from `AbortSignal`-aware code (`fetch`, `timers/promises`…), as node shapes them. */
export function isAbortShaped(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const shaped = error as { name?: unknown; code?: unknown };
  return shaped.name === "AbortError" || shaped.code === "ABORT_ERR";
}

/**
 * The error a failed handler is answered with (the only mapping of it):
 * - a `RequestError` is answered as it is;
 * - invalid params (a `DecodeError`) are `-32602` with the JSON pointer in `data`;
 * - an abort-shaped error is `-32800`: ACP cancellation.mdx, internal cancellation "SHOULD: Send
 *   the same `-32800` (Cancelled) error response as if `$/cancel_request` was received";
 * - anything else is `-32603` with the message in `data.details`.
 */
export function errorObject(error: unknown, requestId: RequestId): ErrorObject {
  if (error instanceof RequestError) return error.toObject();
  if (error instanceof DecodeError) {
    return { code: INVALID_PARAMS, message: "Invalid params", data: { pointer: error.pointer, expected: error.expected } };
  }
  if (isAbortShaped(error)) return RequestError.cancelled(requestId).toObject();
  const details = error instanceof Error ? error.message : String(error);
  return { code: INTERNAL_ERROR, message: "Internal error", data: { details } };
}
