"""Our server's WebSocket under uvicorn with `AcpWebSocket` (`transports/uvicorn_ws.py`): each
text message goes to the connection in the callback that read it (the scope extension
`acp.websocket.direct`), with the RFD's rules kept: "All messages are WebSocket text frames
containing JSON-RPC. Binary frames are ignored"; a message in fragments arrives whole; invalid
UTF-8 is closed 1007 (RFC 6455 8.1); what is not JSON is answered with a parse error; held
reading keeps what was read and gives it in order; too much input closes 1013; each line the
connection writes is one text frame."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from acp_protocol.runtime.transports.http_policy import HttpServerOptions
from acp_protocol.runtime.transports.uvicorn_ws import AcpWebSocket
from uvicorn.server import ServerState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.remote.support import RecordingServer, serving


def _message(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "n": n}}


@pytest.fixture
async def server() -> AsyncIterator[tuple[RecordingServer, str]]:
    app = RecordingServer(HttpServerOptions(max_buffered_bytes=4096))
    async with serving(app) as base:
        yield app, base.replace("http", "ws", 1) + "/acp"


async def _recv(socket: ClientConnection) -> Any:
    return json.loads(await asyncio.wait_for(socket.recv(decode=True), 5))


async def test_fragments_binary_frames_and_what_is_not_json(
    server: tuple[RecordingServer, str],
) -> None:
    app, url = server
    async with connect(url) as socket:
        text = json.dumps(_message(1))
        await socket.send(iter([text[:10], text[10:30], text[30:]]))  # one message, 3 frames
        await socket.send(b"\x00\x01binary")
        await socket.send("{\n not json")
        await socket.send(json.dumps(_message(2), indent=1))  # pretty JSON spans lines
        error = await _recv(socket)
        transport = app.held[0].transport
        read = b""
        while read.count(b"\n") < 2:
            read += await asyncio.wait_for(transport.read(), 5)
    assert app.direct == [True]
    assert error["error"]["code"] == -32700
    assert [json.loads(line)["params"]["n"] for line in read.splitlines()] == [1, 2]


async def test_invalid_utf8_is_closed_1007(server: tuple[RecordingServer, str]) -> None:
    _, url = server
    async with connect(url) as socket:
        await socket.send(iter([b'{"x":"\xff\xfe"}']), text=True)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(socket.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007


async def test_held_reading_keeps_what_was_read_and_gives_it_in_order(
    server: tuple[RecordingServer, str],
) -> None:
    app, url = server
    chunks: list[bytes] = []
    async with connect(url) as socket:
        await socket.send(json.dumps(_message(0)))
        await _until(lambda: bool(app.held))
        transport = app.held[0].transport
        assert transport.deliver_to(chunks.append)  # type: ignore[attr-defined]
        await _until(lambda: bool(chunks))
        transport.pause_reading()  # type: ignore[attr-defined]
        for n in (1, 2, 3):
            await socket.send(json.dumps(_message(n)))
        await asyncio.sleep(0.2)
        while_held = len(chunks)
        transport.resume_reading()  # type: ignore[attr-defined]
        await _until(lambda: len(chunks) == 4)
        transport.write(b'{"id":1}\n{"id":2}\n')
        frames = [await _recv(socket), await _recv(socket)]
    await _until(lambda: chunks[-1] == b"")
    assert while_held == 1
    assert [json.loads(c)["params"]["n"] for c in chunks if c] == [0, 1, 2, 3]
    assert frames == [{"id": 1}, {"id": 2}] and chunks.count(b"") == 1


async def test_too_much_input_waiting_is_closed_1013(server: tuple[RecordingServer, str]) -> None:
    _, url = server
    async with connect(url) as socket:
        with pytest.raises(ConnectionClosed) as closed:
            for n in range(100):  # nobody reads them: past max_buffered_bytes (4096)
                await socket.send(json.dumps(_message(n)) + " " * 100)
            await asyncio.wait_for(socket.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013


async def _until(condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


async def test_writing_is_paused_from_the_transport_s_pause_until_its_resume_or_the_loss() -> None:
    """asyncio's flow control (`pause_writing` above the high-water mark, `resume_writing` below
    the low one) reaches the connection's writers through `writing_paused()`, and they go on when
    the socket is lost, as uvicorn's `writable` event does."""
    config = uvicorn.Config(RecordingServer(HttpServerOptions()), ws=AcpWebSocket)
    config.load()
    socket = AcpWebSocket(config, ServerState(), {})
    socket.connection_made(_Transport())
    seen = [socket.writing_paused()]
    socket.pause_writing()
    seen += [socket.writing_paused(), not socket.writable.is_set()]
    socket.resume_writing()
    seen += [socket.writing_paused(), not socket.writable.is_set()]
    socket.pause_writing()
    socket.connection_lost(None)
    seen += [socket.writing_paused(), not socket.writable.is_set()]
    assert seen == [False, True, True, False, False, False, False]


class _Transport(asyncio.Transport):
    """Enough of a socket for uvicorn's protocol to be made and lost."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 1), "peername": ("127.0.0.1", 2)}.get(name, default)

    def close(self) -> None:
        pass
