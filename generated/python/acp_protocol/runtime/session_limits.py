# Copied by acp-codegen from templates/python/runtime/session_limits.py. Do not edit here:
# edit the source, then run `make generate`.

"""The session store's guards and its `session/list` cursors.

Layer: typed layer (helpers of `session_store.SessionStore`).

- titles: "Agents should validate title length (recommend 500 chars max)" (session-info RFD):
  `TITLE_LIMIT`;
- `_meta`: a value whose JSON is over the store's byte limit (`META_LIMIT`, 64 KiB) or nested
  deeper than `META_DEPTH` is rejected with one logged error, and the stored state stays as it was;
- cursors: "Cursors are opaque" (the session/list RFD): a base64 JSON position this store made;
  any other string is `-32602`.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Mapping
from typing import Any

from .errors import InvalidParams

# Logged under the store's name, where a user's logging configuration already looks.
log = logging.getLogger(__name__.rpartition(".")[0] + ".session_store")

TITLE_LIMIT = 500
META_LIMIT = 64 * 1024
META_DEPTH = 64
"""Deepest `_meta` nesting accepted: deeper would exhaust the recursion of JSON encoders."""


def meta_fits(session_id: str, meta: Mapping[str, Any], limit: int) -> bool:
    """Whether `meta` is within `META_DEPTH` and `limit` bytes of JSON; one logged error if not."""
    depth = _depth(meta)
    if depth > META_DEPTH:
        log.error(
            "session %s: _meta nested %d deep rejected (limit %d); state unchanged",
            session_id,
            depth,
            META_DEPTH,
        )
        return False
    size = len(json.dumps(meta, separators=(",", ":")).encode())
    if size > limit:
        log.error(
            "session %s: _meta of %d bytes rejected (limit %d); state unchanged",
            session_id,
            size,
            limit,
        )
        return False
    return True


def encode_cursor(position: int) -> str:
    """The opaque cursor that continues after `position`."""
    return base64.urlsafe_b64encode(json.dumps({"after": position}).encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    """The position a cursor continues after; `-32602` for a cursor this store did not make."""
    if cursor is None:
        return 0
    try:
        after = json.loads(base64.urlsafe_b64decode(cursor.encode()))["after"]
    except (ValueError, KeyError, TypeError, binascii.Error):
        after = None
    if type(after) is not int or after < 0:
        raise InvalidParams("Invalid cursor", {"cursor": cursor})
    return after


def _depth(value: Any) -> int:
    """How deeply objects and arrays nest in `value`, without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        if depth > META_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in children)
    return deepest
