/**
 * W3C trace context carried in `params._meta`, propagated to a handler's nested requests and
 * notifications. Layer: dispatcher (pure functions on JSON params; the typed layer's handler
 * context applies them to everything its peer sends, roles.ts; the Python runtime's
 * trace_context.py).
 *
 * "The following root-level keys in `_meta` SHOULD be reserved for W3C trace context …
 * `traceparent`, `tracestate`, `baggage`" (ACP `extensibility.mdx`); the meta-propagation RFD makes
 * `params._meta` the carrier, with the keys at its root. What a handler sends while handling a
 * request carrying them (a prompt's `fs/read_text_file` and its `session/update`s) gets a copy of
 * them, unless the outgoing message's `_meta` already has one of them: a handler that sets its own
 * context owns all three.
 */

export const TRACE_KEYS = ["traceparent", "tracestate", "baggage"] as const;

/** The trace keys found at the root of a request's `params._meta` (string values only). */
export type TraceContext = Readonly<Partial<Record<(typeof TRACE_KEYS)[number], string>>>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The trace keys at the root of `params._meta` (string values only), or null when none. */
export function traceContextOf(params: unknown): TraceContext | null {
  if (!isObject(params)) return null;
  const meta = params._meta;
  if (!isObject(meta)) return null;
  let found: Record<string, string> | null = null;
  for (const key of TRACE_KEYS) {
    const value = meta[key];
    if (typeof value === "string") (found ??= {})[key] = value;
  }
  return found;
}

/** `params` with `trace` added to its `_meta`: a copy, never the caller's object. Params that
 * already carry a trace key, or are not an object (an array), are returned as they are; absent
 * params become `{_meta: trace}`. */
export function withTraceContext(params: unknown, trace: TraceContext): unknown {
  if (params === undefined || params === null) return { _meta: { ...trace } };
  if (!isObject(params)) return params;
  const meta = isObject(params._meta) ? params._meta : {};
  if (TRACE_KEYS.some((key) => key in meta)) return params;
  return { ...params, _meta: { ...meta, ...trace } };
}

/** `params` of a request or notification sent while handling a request whose params are
 * `handled`: with that request's trace keys added when it has any, else as they are. */
export function carryTraceContext(params: unknown, handled: unknown): unknown {
  const trace = traceContextOf(handled);
  return trace === null ? params : withTraceContext(params, trace);
}
