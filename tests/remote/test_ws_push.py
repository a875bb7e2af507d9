"""Push reading over a WebSocket (`PushTransport.deliver_to`,
`MessageTransport.deliver_messages_to`), both ends: the messages of a read reach the connection
in the callback (client) or the ASGI receive loop (server) that took them, in order and whole (as
NDJSON lines, or as the messages themselves); while the connection holds reading nothing reaches
it and it all comes on release; the end comes once. Streamable HTTP keeps pull reading (each POST
is a request of its own), as does our client on asyncio's loop (where pipes measured faster
pulled)."""

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


def test_the_client_delivers_each_read_as_whole_messages_on_uvloop() -> None:
    """Each message of a read is one item (a newline inside made a space, `ndjson_line`); the
    end is `[]`, once; `write_message` sends one text frame."""

    async def main() -> tuple[list[list[bytes]], str]:
        reads: list[list[bytes]] = []
        ended = asyncio.Event()

        def sink(messages: list[bytes]) -> None:
            reads.append(messages)
            if not messages:
                ended.set()

        received: list[str] = []

        async def handler(socket: ServerConnection) -> None:
            await socket.send(_message(0).decode())
            await socket.send('{"jsonrpc": "2.0",\n "method": "x"}')
            received.append(str(await socket.recv()))
            await socket.close()

        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            transport = await open_websocket(f"ws://127.0.0.1:{port}/acp", {}, 1 << 20)
            assert transport.deliver_messages_to(sink)
            transport.write_message(b'{"jsonrpc":"2.0","id":1,"result":{}}')
            await asyncio.wait_for(ended.wait(), 5)
            await transport.close()
        return reads, received[0]

    reads, received = uvloop.run(main())
    messages = [message for read in reads for message in read]
    assert messages == [_message(0), b'{"jsonrpc": "2.0",  "method": "x"}']
    assert reads[-1] == [] and reads.count([]) == 1
    assert received == '{"jsonrpc":"2.0","id":1,"result":{}}'


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
    assert connection.put(_message(0))  # before the connection asked: kept for it
    chunks: list[bytes] = []
    assert connection.deliver_to(chunks.append)
    assert connection.put(_message(1))
    connection.pause_reading()
    held = connection.reading_held
    waiting = asyncio.get_running_loop().create_task(connection.reading_allowed())
    await asyncio.sleep(0)
    still_waiting = not waiting.done()
    connection.resume_reading()
    await asyncio.wait_for(waiting, 5)
    connection.end_input()
    connection.end_input()
    assert connection.put(_message(2))  # after the end: dropped, as the client is gone
    assert held and still_waiting and not connection.reading_held
    assert _numbers([chunk for chunk in chunks if chunk]) == [0, 1]
    assert chunks[-1] == b"" and chunks.count(b"") == 1


async def test_a_websocket_connection_delivers_whole_messages_and_the_end_once() -> None:
    """ "All messages are WebSocket text frames containing JSON-RPC": a message goes to the
    connection as it came, never joined into a chunk of lines to be split again."""
    connection = _connection(websocket=True)
    assert connection.put(_message(0))  # before the connection asked: kept for it
    reads: list[list[bytes]] = []
    assert connection.deliver_messages_to(reads.append)
    assert connection.put(_message(1))
    connection.end_input()
    connection.end_input()
    assert connection.put(_message(2))  # after the end: dropped
    assert reads == [[_message(0)], [_message(1)], []]


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
