"""`AcpWebSocket` reads the common frame itself (a whole masked text frame, RFC 6455 5.2) and gives
every other frame to websockets whole: raw frames written by hand, in pieces and together, give
the connection the same messages, and each other frame is answered as the library answers it
(ping → pong; unmasked → 1002, "a client MUST mask all frames that it sends to the server";
over the size limit → 1009; a text frame inside a fragmented message → 1002)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.remote.support import RecordingServer, serving

TEXT, BINARY, CONTINUATION, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA


def frame(opcode: int, payload: bytes, *, fin: bool = True, masked: bool = True) -> bytes:
    """One client frame as RFC 6455 5.2 lays it out (masked with a random key)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if masked else 0
    length = len(payload)
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 1 << 16:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if not masked:
        return head + payload
    key = os.urandom(4)
    keys = (key * (length // 4 + 1))[:length]
    masked_payload = (int.from_bytes(payload, "big") ^ int.from_bytes(keys, "big")).to_bytes(
        length, "big"
    )
    return head + key + masked_payload


def message(n: int, pad: int = 0) -> bytes:
    params = {"sessionId": "s", "n": n, "pad": "x" * pad}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}).encode()


class _App(RecordingServer):
    async def lines(self, count: int) -> list[int]:
        """The `n` of the next `count` messages the connection reads."""
        for _ in range(500):
            if self.held:
                break
            await asyncio.sleep(0.01)
        read = b""
        while read.count(b"\n") < count:
            read += await asyncio.wait_for(self.held[0].transport.read(), 5)
        return [json.loads(line)["params"]["n"] for line in read.splitlines()]


@pytest.fixture
async def raw() -> AsyncIterator[tuple[_App, asyncio.StreamReader, asyncio.StreamWriter]]:
    app = _App()
    async with serving(app) as base:
        host, port = base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /acp HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert answer.startswith(b"HTTP/1.1 101")
        yield app, reader, writer
        writer.close()


async def server_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """(opcode, payload) of the server's next frame (unmasked, RFC 6455 5.1)."""
    first, second = await asyncio.wait_for(reader.readexactly(2), 5)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    return first & 0x0F, await reader.readexactly(length)


async def test_frames_in_pieces_and_together_arrive_whole_and_in_order(raw: Any) -> None:
    """Each length form (7-bit, 16-bit, 64-bit) in one write, then the same frames written a few
    bytes at a time, then all in one write."""
    app, _, writer = raw
    frames = [frame(TEXT, message(n, pad)) for n, pad in enumerate((0, 300, 70_000))]
    for one in frames:
        writer.write(one)
        await writer.drain()
    data = b"".join(frame(TEXT, message(3 + n, pad)) for n, pad in enumerate((0, 300, 70_000)))
    for start in range(0, len(data), 7):
        writer.write(data[start : start + 7])
        await writer.drain()
    writer.write(b"".join(frames))
    assert await app.lines(9) == [0, 1, 2, 3, 4, 5, 0, 1, 2]
    assert app.sockets[0]._direct  # read here, not by the library


async def test_a_long_frame_in_many_reads_arrives_whole(raw: Any) -> None:
    """4 MiB in 4 KiB writes: what is read of it is kept, appended to, and read once whole."""
    app, _, writer = raw
    data = frame(TEXT, message(7, 4 << 20)) + frame(TEXT, message(8))
    for start in range(0, len(data), 4096):
        writer.write(data[start : start + 4096])
    await writer.drain()
    assert await app.lines(2) == [7, 8]


async def test_a_ping_between_text_frames_is_answered_and_the_texts_go_on(raw: Any) -> None:
    app, reader, writer = raw
    writer.write(frame(TEXT, message(1)) + frame(PING, b"are you there") + frame(TEXT, message(2)))
    assert await server_frame(reader) == (PONG, b"are you there")
    assert await app.lines(2) == [1, 2]
    assert app.sockets[0]._direct  # the ping went to the library, the texts did not


async def test_binary_frames_and_fragments_are_the_library_s_and_reading_goes_on(
    raw: Any,
) -> None:
    """ "Binary frames are ignored"; a message in fragments arrives whole."""
    app, _, writer = raw
    text = message(2)
    writer.write(
        frame(TEXT, message(1))
        + frame(BINARY, b"\x00\x01")
        + frame(TEXT, text[:5], fin=False)
        + frame(CONTINUATION, text[5:9], fin=False)
        + frame(CONTINUATION, text[9:])
        + frame(TEXT, message(3))
    )
    assert await app.lines(3) == [1, 2, 3]


async def test_an_unmasked_frame_is_closed_1002(raw: Any) -> None:
    _, reader, writer = raw
    writer.write(frame(TEXT, message(1)) + frame(TEXT, message(2), masked=False))
    opcode, payload = await server_frame(reader)
    assert (opcode, struct.unpack("!H", payload[:2])[0]) == (CLOSE, 1002)


async def test_a_text_frame_inside_a_fragmented_message_is_closed_1002(raw: Any) -> None:
    _, reader, writer = raw
    writer.write(frame(TEXT, b'{"a":', fin=False) + frame(TEXT, message(1)))
    opcode, payload = await server_frame(reader)
    assert (opcode, struct.unpack("!H", payload[:2])[0]) == (CLOSE, 1002)


async def test_a_frame_over_the_size_limit_is_closed_1009(raw: Any) -> None:
    """uvicorn's `ws_max_size` (16 MiB by default): refused from its header, never read."""
    _, reader, writer = raw
    writer.write(bytes([0x81, 0x80 | 127]) + struct.pack("!Q", 1 << 25) + os.urandom(4))
    opcode, payload = await server_frame(reader)
    assert (opcode, struct.unpack("!H", payload[:2])[0]) == (CLOSE, 1009)
