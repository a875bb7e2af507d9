# Copied by acp-codegen from templates/python/runtime/transports/ws_frames.py. Do not edit here:
# edit the source, then run `make generate`.

"""Text frames as ACP's WebSocket transport writes them (RFC 6455 5.2), one whole message each:
masked from the client (`text_frame`), unmasked from the server (`server_text_frame`), in one
call rather than the websockets library's per-frame `Frame` object and stream. "All messages are
WebSocket text frames containing JSON-RPC."

Layer: transport. Needs the `http` extra (websockets, for its C masking).
"""

from __future__ import annotations

import os
import struct

try:  # the websockets library's C masking, as it uses itself; its Python one where not built
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask


_MASK_POOL = 4096
"""Random bytes drawn at a time for masking keys (one system call per 1,024 frames, not one
per frame)."""


class _MaskKeys:
    """RFC 6455 5.3: "The masking key is a 32-bit value chosen at random by the client", "from a
    strong source of entropy": `os.urandom`, drawn `_MASK_POOL` bytes at a time."""

    def __init__(self) -> None:
        self._pool = b""
        self._at = _MASK_POOL  # drawn at the first key


_keys = _MaskKeys()


def text_frame(payload: bytes) -> bytes:
    """One whole message as a masked text frame (RFC 6455 5.2: FIN, opcode 1, the MASK bit, the
    7, 16 or 64-bit length, the masking key, the masked payload), as the websockets library
    writes it for a client without extensions; in one call rather than its per-frame
    `Frame` object and stream."""
    length = len(payload)
    if length < 126:
        head = bytes((0x81, 0x80 | length))
    elif length < 65536:
        head = struct.pack("!BBH", 0x81, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
    keys = _keys  # the next 4 bytes of its pool (read here: one call less per frame)
    at = keys._at
    if at >= _MASK_POOL:
        keys._pool, at = os.urandom(_MASK_POOL), 0
    keys._at = at + 4
    key = keys._pool[at : at + 4]
    return head + key + apply_mask(payload, key)


def server_text_frame(payload: bytes) -> bytes:
    """One whole message as an unmasked text frame (RFC 6455 5.2: FIN, opcode 1, the 7, 16 or
    64-bit length; "A server MUST NOT mask any frames that it sends to the client")."""
    length = len(payload)
    if length < 126:
        return bytes((0x81, length)) + payload
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length) + payload
    return struct.pack("!BBQ", 0x81, 127, length) + payload
