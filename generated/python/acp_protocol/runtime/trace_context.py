# Copied by acp-codegen from templates/python/runtime/trace_context.py. Do not edit here:
# edit the source, then run `make generate`.

"""W3C trace context carried in `params._meta`, propagated to nested requests and notifications.

Layer: dispatcher.

"The following root-level keys in `_meta` SHOULD be reserved for W3C trace context …
`traceparent`, `tracestate`, `baggage`" (ACP `extensibility.mdx`); the meta-propagation RFD makes
`params._meta` the carrier, with the keys at its root. The connection copies them from the request
being handled into each nested request and each notification it sends while handling it (a prompt's
`fs/read_text_file` and its `session/update`s), unless the outgoing message's `_meta` already has
one of them: a handler that sets its own context owns all three.
"""

from __future__ import annotations

from typing import Any

TRACE_KEYS = ("traceparent", "tracestate", "baggage")


def trace_context_of(params: Any) -> dict[str, str] | None:
    """The trace keys at the root of `params._meta` (string values only), or None."""
    if type(params) is not dict:
        return None
    meta = params.get("_meta")
    if type(meta) is not dict:
        return None
    found = {key: meta[key] for key in TRACE_KEYS if isinstance(meta.get(key), str)}
    return found or None


def with_trace_context(params: Any, trace: dict[str, str]) -> Any:
    """`params` (a model or a JSON object) with `trace` added to its `_meta`; a copy, never the
    caller's object. Params that already carry a trace key, or are not an object, are returned
    as they are."""
    to_wire = getattr(params, "to_wire", None)
    wire = to_wire() if to_wire is not None else params
    if params is None:
        wire = {}
    if not isinstance(wire, dict):
        return params
    meta = wire.get("_meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    if any(key in meta for key in TRACE_KEYS):
        return params
    return {**wire, "_meta": {**meta, **trace}}


def carry_trace_context(params: Any, handled: Any) -> Any:
    """`params` of a request or notification sent while handling a request whose params are
    `handled`: with that request's trace keys added (`with_trace_context`) when it has any, else
    as they are."""
    trace = trace_context_of(handled)
    return params if trace is None else with_trace_context(params, trace)
