# Copied by acp-codegen from templates/python/runtime/transports/ws_client.py. Do not edit here:
# edit the source, then run `make generate`.

"""The client of ACP's WebSocket transport: a `Transport` over one WebSocket.

Layer: transport. Needs the `http` extra (the `websockets` library: the handshake, framing, ping
and close). "A GET with `Upgrade: websocket` upgrades to a persistent bidirectional channel";
"All messages are WebSocket text frames containing JSON-RPC. Binary frames are ignored." Each
frame our connection writes is sent as one text frame, in order; each text frame received is one
message. Opened through `remote.open_remote`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed as SocketClosed
from websockets.exceptions import InvalidHandshake

from ..errors import ConnectionClosed
from .framing import ndjson_line
from .queues import Inbox, SendQueue

log = logging.getLogger(__name__)

_HIGH_WATER = 1024 * 1024
"""Bytes written and not yet sent above which `writing_paused()` says so."""


class WebSocketTransport:
    """A `Transport` over an open WebSocket (see the module)."""

    def __init__(self, socket: ClientConnection, frame_limit: int) -> None:
        self._socket = socket
        self._inbox = Inbox(frame_limit)
        self._outgoing = SendQueue(_HIGH_WATER)
        self._closed = False
        loop = asyncio.get_running_loop()
        self._reader = loop.create_task(self._read_loop())
        self._sender = loop.create_task(self._send_loop())

    async def read(self) -> bytes:
        return await self._inbox.read()

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._closed or self._inbox.ended:
            raise ConnectionClosed("the WebSocket is closed")
        self._outgoing.put(data)

    def writing_paused(self) -> bool:
        return self._closed or self._outgoing.full()

    async def drain(self) -> None:
        await self._outgoing.drain(lambda: self._closed)

    async def close(self) -> None:
        """Send what was written, then close the socket (the server ends the connection)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._outgoing.flush(lambda: self._inbox.ended), 2.0)
        self._sender.cancel()
        with contextlib.suppress(SocketClosed, OSError):
            await self._socket.close()
        self._reader.cancel()
        await asyncio.gather(self._sender, self._reader, return_exceptions=True)
        self._inbox.end()
        self._outgoing.sent()

    async def _send_loop(self) -> None:
        socket = self._socket
        try:
            while True:
                line = await self._outgoing.take()
                await socket.send(line, text=True)
                self._outgoing.sent()
        except (SocketClosed, OSError):
            self._inbox.end()  # the agent is gone: pending calls fail at once
            self._outgoing.sent()

    async def _read_loop(self) -> None:
        try:
            async for message in self._socket:
                if isinstance(message, bytes):
                    continue  # "Binary frames are ignored"
                data = message.encode()
                line = ndjson_line(data)
                if line is None:
                    log.error("the agent sent a message that is not JSON (%d bytes)", len(data))
                    continue
                await self._inbox.put_when_room(line + b"\n")
        except (SocketClosed, OSError) as error:
            if not self._closed:
                log.error("the WebSocket to the agent closed: %s", error)
        finally:
            self._inbox.end()


async def open_websocket(
    url: str, headers: dict[str, str], frame_limit: int, *, verify: bool | ssl.SSLContext = True
) -> WebSocketTransport:
    """A transport over a WebSocket to `url`; `ConnectionError` (one line) when the server
    refuses or cannot be reached. `verify` as for Streamable HTTP (`open_remote`)."""
    context: ssl.SSLContext | None = None
    if url.lower().startswith("wss:"):
        context = verify if isinstance(verify, ssl.SSLContext) else ssl.create_default_context()
        if verify is False:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    try:
        socket = await connect(
            url, additional_headers=headers, max_size=frame_limit, compression=None, ssl=context
        )
    except InvalidHandshake as error:
        raise ConnectionError(f"{url}: the server refused the WebSocket: {error}") from None
    except (OSError, asyncio.TimeoutError) as error:
        raise ConnectionError(f"{url}: {type(error).__name__}: {error}") from None
    return WebSocketTransport(socket, frame_limit)
