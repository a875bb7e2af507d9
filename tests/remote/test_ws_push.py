"""Push reading over a WebSocket (`PushTransport.deliver_to`), both ends: the messages of a read
reach the connection in the callback (client) or the ASGI receive loop (server) that took them,
in order and whole; while the connection holds reading nothing reaches it and it all comes on
release; the end comes once. Streamable HTTP keeps pull reading (each POST is a request of its
own), as does our client on asyncio's loop (where pipes measured faster pulled)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import uvloop
from acp_protocol.runtime.transports.http_connection import HttpConnection, SessionOwners
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.runtime.transports.ws_client import open_websocket
from websockets.asyncio.server import ServerConnection, serve


def _message(n: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"n": n}}).encode()


def _numbers(chunks: list[bytes]) -> list[int]:
    return [json.loads(line)["params"]["n"] for line in b"".join(chunks).splitlines()]


def test_the_client_pushes_each_read_on_uvloop_and_holds_while_asked() -> None:
    async def main() -> tuple[list[int], list[int], list[int], list[bytes]]:
        chunks: list[bytes] = []
        go_on, pinged, arrived = asyncio.Event(), asyncio.Event(), asyncio.Event()

        def sink(chunk: bytes) -> None:
            chunks.append(chunk)
            arrived.set()

        async def until(done: Callable[[], bool]) -> None:
            while not done():
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 5)

        async def handler(socket: ServerConnection) -> None:
            for n in range(3):
                await socket.send(_message(n).decode())
            await go_on.wait()
            await socket.send(_message(3).decode())
            await (await socket.ping())  # answered after the client read message 3
            pinged.set()
            await socket.recv()  # the client's word that it has seen what it was held
            await socket.close()

        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            transport = await open_websocket(f"ws://127.0.0.1:{port}/acp", {}, 1 << 20)
            assert transport.deliver_to(sink)
            await until(lambda: len(_numbers(chunks)) == 3)
            first = _numbers(chunks)
            transport.pause_reading()
            go_on.set()
            await asyncio.wait_for(pinged.wait(), 5)
            while_held = _numbers(chunks)
            transport.resume_reading()
            after = _numbers(chunks)
            transport.write(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
            await until(lambda: b"" in chunks)  # the server closed
            ends = [chunk for chunk in chunks if chunk == b""]
            await transport.close()
        return first, while_held, after, ends

    first, while_held, after, ends = uvloop.run(main())
    assert first == [0, 1, 2]
    assert while_held == [0, 1, 2]
    assert after == [0, 1, 2, 3]
    assert ends == [b""]


async def test_the_client_pulls_on_asyncio_loop() -> None:
    async def handler(socket: ServerConnection) -> None:
        await socket.send(_message(7).decode())
        await socket.close()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        transport = await open_websocket(f"ws://127.0.0.1:{port}/acp", {}, 1 << 20)
        pushed = transport.deliver_to(lambda chunk: None)
        line = await asyncio.wait_for(transport.read(), 5)
        await transport.close()
    assert not pushed
    assert _numbers([line]) == [7]


def _connection(*, websocket: bool) -> HttpConnection:
    return HttpConnection(
        "c", HttpServerOptions(), SessionOwners(), websocket=websocket, on_close=lambda c: None
    )


async def test_a_websocket_connection_pushes_what_it_is_given_and_the_end_once() -> None:
    connection = _connection(websocket=True)
    assert connection.put(_message(0) + b"\n")  # before the connection asked: kept for it
    chunks: list[bytes] = []
    assert connection.deliver_to(chunks.append)
    assert connection.put(_message(1) + b"\n")
    connection.pause_reading()
    held = connection.reading_held
    waiting = asyncio.get_running_loop().create_task(connection.reading_allowed())
    await asyncio.sleep(0)
    still_waiting = not waiting.done()
    connection.resume_reading()
    await asyncio.wait_for(waiting, 5)
    connection.end_input()
    connection.end_input()
    assert connection.put(_message(2) + b"\n")  # after the end: dropped, as the client is gone
    assert held and still_waiting and not connection.reading_held
    assert _numbers([chunk for chunk in chunks if chunk]) == [0, 1]
    assert chunks[-1] == b"" and chunks.count(b"") == 1


async def test_a_streamable_http_connection_keeps_pull_reading() -> None:
    assert not _connection(websocket=False).deliver_to(lambda chunk: None)


async def test_each_line_written_is_one_masked_text_frame_of_any_length() -> None:
    """RFC 6455 5.2: 7-bit, 16-bit and 64-bit payload lengths; the server unmasks each."""
    lines = [b'{"n":"' + b"x" * size + b'"}' for size in (0, 120, 300, 70_000)]
    received: list[str] = []

    async def handler(socket: ServerConnection) -> None:
        for _ in lines:
            received.append(await socket.recv(decode=True))
        await socket.close()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        transport = await open_websocket(f"ws://127.0.0.1:{port}/acp", {}, 1 << 20)
        transport.write(lines[0] + b"\n" + lines[1] + b"\n")
        transport.write(lines[2] + b"\n")
        transport.write(lines[3] + b"\n")
        assert await asyncio.wait_for(transport.read(), 5) == b""  # the server closed
        await transport.close()
    assert [text.encode() for text in received] == lines
