"""Our WebSocket client (`transports/ws_client.py`, the websockets library's Sans-I/O protocol
driven by our asyncio protocol) against a plain websockets server: a message sent in fragments
arrives whole, "Binary frames are ignored", a ping is answered, each line we write is one text
frame, and the server closing ends our input."""

from __future__ import annotations

import asyncio
import json

from acp_protocol.runtime.transports.queues import Inbox
from acp_protocol.runtime.transports.uvicorn_ws import server_text_frame
from acp_protocol.runtime.transports.ws_client import _SocketProtocol, open_websocket
from acp_protocol.runtime.transports.ws_frames import text_frame
from websockets.asyncio.server import ServerConnection, serve
from websockets.client import ClientProtocol
from websockets.uri import parse_uri
from websockets.utils import accept_key, apply_mask

MESSAGE = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "n": 1}}


async def test_fragments_binary_frames_pings_and_the_end() -> None:
    received: list[str] = []
    pong = asyncio.Event()

    async def handler(socket: ServerConnection) -> None:
        text = json.dumps(MESSAGE)
        await socket.send(iter([text[:10], text[10:30], text[30:]]))  # one message, 3 frames
        await socket.send(b"\x00\x01binary")
        waiter = await socket.ping()
        await waiter
        pong.set()
        received.extend([await socket.recv(decode=True), await socket.recv(decode=True)])
        await socket.close()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        transport = await open_websocket(f"ws://127.0.0.1:{port}/acp", {}, 1 << 20)
        first = await asyncio.wait_for(transport.read(), 5)
        transport.write(
            b'{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'
        )
        await asyncio.wait_for(pong.wait(), 5)
        end = await asyncio.wait_for(transport.read(), 5)
        await transport.close()
    assert json.loads(first) == MESSAGE and first.endswith(b"\n")
    assert [json.loads(text)["id"] for text in received] == [1, 2]
    assert end == b""


async def test_whole_text_frames_of_every_length_then_the_library_from_the_first_other() -> None:
    """Whole text frames (7, 16 and 64-bit lengths, one split over many reads) are read by our
    protocol; from the first other frame (a ping) on the library reads: the ping is answered and a
    fragmented message after it still arrives whole, in order."""
    texts = ['{"n":"' + "x" * size + '"}' for size in (0, 120, 300, 70_000)]
    pong = asyncio.Event()

    async def handler(socket: ServerConnection) -> None:
        await socket.recv()  # as an agent: nothing before the client's first message
        for text in texts:
            await socket.send(text)
        await (await socket.ping())
        pong.set()
        await socket.send(iter([texts[1][:7], texts[1][7:]]))
        await socket.send(texts[0])
        await socket.close()

    got: list[bytes] = []
    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        transport = await open_websocket(f"ws://127.0.0.1:{port}/acp", {}, 1 << 20)
        transport.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
        while not got or got[-1] != b"":
            got.append(await asyncio.wait_for(transport.read(), 5))
        await transport.close()
    lines = b"".join(got).splitlines()
    assert [line.decode() for line in lines] == [*texts, texts[1], texts[0]]
    assert pong.is_set()


async def test_a_text_frame_read_a_byte_at_a_time_arrives_once_whole() -> None:
    """Direct reading keeps the start of a frame until its end comes, header included."""
    websocket = ClientProtocol(parse_uri("ws://127.0.0.1:1/acp"), max_size=1 << 20)
    request = websocket.connect()
    websocket.send_request(request)
    inbox = Inbox(1 << 20)
    protocol = _SocketProtocol(websocket, inbox)
    accept = accept_key(request.headers["Sec-WebSocket-Key"])
    protocol.data_received(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + accept.encode() + b"\r\n\r\n"
    )
    texts = [b'{"n":"' + b"x" * size + b'"}' for size in (1, 200, 70_000)]
    frames = b"".join(server_text_frame(text) for text in texts)
    for at in range(len(frames) - 1):
        protocol.data_received(frames[at : at + 1])
    assert inbox.take_all() == texts[0] + b"\n" + texts[1] + b"\n"
    protocol.data_received(frames[-1:])
    assert inbox.take_all() == texts[2] + b"\n"


def test_each_frame_written_has_a_key_of_its_own_past_the_pool() -> None:
    """RFC 6455 5.3: "The masking key is a 32-bit value chosen at random by the client": keys are
    drawn 1,024 at a time, and every frame, across draws, unmasks to its payload."""
    payload = b'{"jsonrpc":"2.0","id":1,"result":{}}'
    keys = []
    for _ in range(2500):
        frame = text_frame(payload)
        key = frame[2:6]
        assert frame[:2] == bytes((0x81, 0x80 | len(payload)))
        assert apply_mask(frame[6:], key) == payload
        keys.append(key)
    assert len(set(keys)) > 2400  # 32 random bits each: a repeat is rare, not a rule
