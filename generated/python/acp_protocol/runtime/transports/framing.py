# Copied by acp-codegen from templates/python/runtime/transports/framing.py. Do not edit here:
# edit the source, then run `make generate`.

"""How messages are delimited on a byte stream (transport layer): NDJSON lines, or the LSP base
protocol's `Content-Length` headers.

A `Framing` makes the reader that splits a transport's bytes into message payloads and wraps one
outgoing payload. `NDJSON` (ACP, MCP over stdio) is the default; `CONTENT_LENGTH` speaks the LSP
base protocol: "The header part consists of header fields … `Content-Length` … terminated by
'\\r\\n'"; "The header part and the content part are separated by a '\\r\\n'".
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from ..json_codec import decode
from .transport import DEFAULT_FRAME_LIMIT, LF, FrameReader, OversizedFrame

log = logging.getLogger(__name__)

Read = Callable[[], Awaitable[bytes]]
_HEAD = 4096
_HEADER_END = b"\r\n\r\n"
_LENGTH = b"content-length:"


class PayloadReader(Protocol):
    @property
    def limit(self) -> int: ...

    async def next_lines(self) -> list[bytes | OversizedFrame] | None:
        """The payloads complete with the next chunk (maybe none); None at end of stream."""
        ...

    def feed(self, chunk: bytes) -> list[bytes | OversizedFrame] | None:
        """The payloads complete with `chunk` (maybe none); None when it is the end (`b""`)."""
        ...


@dataclass(frozen=True, slots=True)
class Framing:
    name: str
    reader: Callable[[Read, int], PayloadReader]
    wrap: Callable[[bytes], bytes]


def _ndjson_wrap(payload: bytes) -> bytes:
    return payload + b"\n"


def _content_length_wrap(payload: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


class ContentLengthReader:
    """Splits a stream of `Content-Length` framed messages, in time linear in the bytes read.

    A body longer than `limit` is never held whole: its first bytes are kept as the
    `OversizedFrame`'s head and the rest is skipped. Headers without a usable `Content-Length`
    are dropped up to the next `Content-Length` header (logged): the stream stays usable.
    """

    __slots__ = ("_buffer", "_limit", "_need", "_read", "_skip")

    def __init__(self, read: Read, limit: int = DEFAULT_FRAME_LIMIT) -> None:
        self._read = read
        self._limit = limit
        self._buffer = bytearray()
        self._need: int | None = None  # the body length awaited; None: reading headers
        self._skip = 0  # bytes of an oversized body still to drop

    @property
    def limit(self) -> int:
        return self._limit

    async def next_lines(self) -> list[bytes | OversizedFrame] | None:
        return self.feed(await self._read())

    def feed(self, chunk: bytes) -> list[bytes | OversizedFrame] | None:
        if not chunk:
            if self._buffer.strip() or self._need is not None:
                log.error("the stream ended inside a message (%d bytes dropped)", len(self._buffer))
            return None
        if self._skip:
            dropped = min(self._skip, len(chunk))
            self._skip -= dropped
            chunk = chunk[dropped:]
        self._buffer += chunk
        out: list[bytes | OversizedFrame] = []
        position = 0
        buffer = self._buffer
        while True:
            if self._need is None:
                end = buffer.find(_HEADER_END, position)
                if end < 0:
                    break
                self._need = self._content_length(bytes(buffer[position:end]))
                position = end + len(_HEADER_END)
                if self._need is None:
                    continue
            need = self._need
            if need > self._limit:
                available = len(buffer) - position
                if available < min(need, _HEAD):
                    break
                head = bytes(buffer[position : position + min(need, _HEAD)])
                out.append(OversizedFrame(head, need))
                log.error("dropped a message of %d bytes (frame size limit %d)", need, self._limit)
                taken = min(need, available)
                position += taken
                self._skip = need - taken
                self._need = None
                continue
            if len(buffer) - position < need:
                break
            out.append(bytes(buffer[position : position + need]))
            position += need
            self._need = None
        del buffer[:position]
        return out

    def _content_length(self, header: bytes) -> int | None:
        for line in header.split(b"\r\n"):
            if line.lower().startswith(_LENGTH):
                value = line[len(_LENGTH) :].strip()
                if value.isdigit():
                    return int(value)
        log.error("a message header without a usable Content-Length was dropped")
        return None


NDJSON = Framing("ndjson", FrameReader, _ndjson_wrap)
"""One JSON message per line (ACP, MCP stdio): the default."""
CONTENT_LENGTH = Framing("content-length", ContentLengthReader, _content_length_wrap)
"""The LSP base protocol: `Content-Length: N\\r\\n\\r\\n` then N bytes of JSON."""


def ndjson_line(message: bytes) -> bytes | None:
    """A message received whole (a POST body, a WebSocket or SSE message) as one NDJSON line,
    without its newline: as it came, or, when it spans lines (pretty JSON is valid JSON), with
    each newline made a space; None when it spans lines and is not JSON.

    Never re-encoded: ids and strings keep their bytes (`9007199254740993`, `"caf\\u00e9"`). JSON
    allows a raw newline only as whitespace between tokens (in a string it is escaped), so a
    space stands for it."""
    if LF not in message:
        return message
    try:
        decode(message)
    except ValueError:
        return None
    return message.replace(b"\n", b" ")
