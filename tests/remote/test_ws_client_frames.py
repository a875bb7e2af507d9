"""Our WebSocket client (`transports/ws_client.py`, the websockets library's Sans-I/O protocol
driven by our asyncio protocol) against a plain websockets server: a message sent in fragments
arrives whole, "Binary frames are ignored", a ping is answered, each line we write is one text
frame, and the server closing ends our input."""

from __future__ import annotations

import asyncio
import json

from acp_protocol.runtime.transports.ws_client import open_websocket
from websockets.asyncio.server import ServerConnection, serve

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
