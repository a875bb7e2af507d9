// Copied by acp-codegen from templates/typescript/runtime/envelope.ts: edit it there, then run:
//   make generate
/**
 * What a line is, by JSON-RPC 2.0 §4 and §5: a request, a notification, a response, or not a
 * message (and then whether it is answered); and the text of the answers. Layer: dispatcher.
 *
 * The same rules as the Python runtime's `frames.py`, held to the one rule book both runtimes pass
 * (tests/wire/envelope_corpus.json). ACP does not use batches ("ACP does not use JSON-RPC
 * batches", schema v2), so an array is an invalid request like any other value that is not an
 * object. Ids are read exactly (ids.ts) and answers write them back as they came.
 */

import { INVALID_REQUEST, PARSE_ERROR, type ErrorObject } from "./errors.js";
import { frameId, type WireId } from "./ids.js";

export type Frame =
  | { readonly kind: "request"; readonly id: WireId; readonly method: string; readonly params: unknown }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown }
  /** `id` is null when the response's id is not one of ours to look up (not an int64, a string…). */
  | { readonly kind: "response"; readonly id: WireId | null; readonly result: unknown; readonly error: unknown }
  /** Answered -32600 with `id` (null when it had no usable one) when `answer`; "The Server MUST
   * NOT reply to a Notification" (§4.1), so a malformed one shaped as a notification is not. */
  | { readonly kind: "invalid"; readonly id: WireId | null; readonly reason: string; readonly answer: boolean }
  /** "Invalid JSON was received by the server" (§5.1): answered -32700 with a null id. */
  | { readonly kind: "unparsable"; readonly reason: string }
  /** Whitespace only (as Python's `bytes.strip()` reads it): no message, no answer. */
  | { readonly kind: "blank" };

const BLANK = /^[ \t\r\n\v\f]*$/;

function invalid(id: WireId | null, reason: string, answer = true): Frame {
  return { kind: "invalid", id, reason, answer };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : typeof value === "boolean" ? "a boolean" : "a number";
}

/** What one line is. */
export function readFrame(text: string): Frame {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    if (BLANK.test(text)) return { kind: "blank" };
    return { kind: "unparsable", reason: error instanceof Error ? error.message : String(error) };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return invalid(null, `a message must be a JSON object, not ${describe(message)}`);
  }
  const fields = message as { id?: unknown; method?: unknown; params?: unknown; jsonrpc?: unknown };
  if (!Object.hasOwn(fields, "method")) {
    const id = frameId(text, fields.id);
    if (Object.hasOwn(fields, "result") || Object.hasOwn(fields, "error")) {
      // A response is never answered, whatever else is wrong with it.
      const { result, error } = message as { result?: unknown; error?: unknown };
      return { kind: "response", id, result, error };
    }
    return invalid(id, "a message needs a method (call) or a result or error");
  }
  const hasId = Object.hasOwn(fields, "id");
  const id = hasId ? frameId(text, fields.id) : null;
  if (hasId && id === null) return invalid(null, "a request id must be an integer (int64) or a string");
  const { method, params } = fields;
  // Not a Notification either (its method is not a String): answered, with a null id if none.
  if (typeof method !== "string") return invalid(id, "the method must be a string");
  if (fields.jsonrpc !== "2.0") return invalid(id, 'the "jsonrpc" member must be exactly "2.0"', hasId);
  // §4.2: params "MUST be provided as a Structured value"; null reads as absent (as in Python).
  if (params !== undefined && params !== null && typeof params !== "object") {
    return invalid(id, "params must be an object or an array", hasId);
  }
  if (id === null) return { kind: "notification", method, params };
  return { kind: "request", id, method, params };
}

/** A result answer; `undefined` (or a value JSON cannot spell, such as a function) is `null`.
 * Throws what `JSON.stringify` throws on a value it cannot encode (a BigInt, a cycle). */
export function resultFrame(id: WireId, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${id.json},"result":${JSON.stringify(result) ?? "null"}}`;
}

/** An error answer; `id` null when the request's id could not be read (§5). */
export function errorFrame(id: WireId | null, error: ErrorObject): string {
  return `{"jsonrpc":"2.0","id":${id === null ? "null" : id.json},"error":${JSON.stringify(error)}}`;
}

export function invalidRequest(reason: string): ErrorObject {
  return { code: INVALID_REQUEST, message: "Invalid Request", data: { details: reason } };
}

export function parseError(reason: string): ErrorObject {
  return { code: PARSE_ERROR, message: "Parse error", data: { details: reason } };
}
