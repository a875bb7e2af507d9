# Copied by acp-codegen from templates/python/runtime/transports/ws_client.py. Do not edit here:
# edit the source, then run `make generate`.

"""The client of ACP's WebSocket transport: a `Transport` over one WebSocket.

Layer: transport. Needs the `http` extra: the `websockets` library's Sans-I/O client protocol (the
handshake, reading frames, fragments, ping/pong and the closing handshake; none of it written here),
driven by a plain asyncio protocol, as uvicorn drives its server side. Its asyncio client runs a
lock, a future and a task switch per message; here the messages of a read go to the connection in
the callback that read them (push, on uvloop: `deliver_messages_to`; else queued for `read()`), and
what one call writes leaves in one `write()`, each message one masked text frame made by
`text_frame` (the library's `Frame` object and stream per frame, and a `getrandom` call per masking
key, were about 7 % of the client's profiled time per round trip). Once open, whole unfragmented
text frames are read here too (the library's parser costs about 2.4 µs a frame), until the first
other frame: from there on the library reads everything. "A GET with `Upgrade: websocket` upgrades
to a persistent bidirectional channel"; "All messages are WebSocket text frames containing JSON-RPC.
Binary frames are ignored." Each frame our connection writes is sent as one text frame, in order;
each text message received is one message. Opened through `remote.open_remote`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from ..errors import ConnectionClosed
from ..event_loop import loop_name
from .framing import ndjson_line
from .queues import Inbox
from .transport import LF, MessageSink
from .ws_frames import text_frame

log = logging.getLogger(__name__)

_HIGH_WATER = 1024 * 1024
"""Bytes buffered in the socket above which `writing_paused()` says so."""
_CLOSE_TIMEOUT = 2.0
"""Seconds `close()` waits for the server's side of the closing handshake."""


class _SocketProtocol(asyncio.Protocol):
    """Bytes ↔ the Sans-I/O protocol: events in, data out."""

    def __init__(self, websocket: ClientProtocol, inbox: Inbox) -> None:
        loop = asyncio.get_running_loop()
        self.websocket = websocket
        self.inbox = inbox
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = loop.create_future()
        self.lost: asyncio.Future[None] = loop.create_future()
        self.paused = False
        self._resumed: asyncio.Future[None] | None = None
        self._fragments: list[bytes] | None = None
        self._binary = False
        self.sink: MessageSink | None = None
        """Push mode (`WebSocketTransport.deliver_messages_to`): takes the messages of each read."""
        self.held = False
        self._kept: list[bytes] = []
        self._kept_size = 0
        self.ended = False
        self._batch: list[bytes] = []
        self._direct = False  # reading whole text frames here, not through the library
        self._rest: list[bytes] = []  # direct: the start of a frame whose end has not come
        self._rest_size = 0
        self._needed = 0  # bytes of that start needed to read on (its header, or whole frame)

    # -- asyncio's side ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not subclasses of asyncio's: no isinstance check.
        self.transport = cast(asyncio.Transport, transport)
        self.transport.set_write_buffer_limits(high=_HIGH_WATER)
        self.flush()

    def data_received(self, data: bytes) -> None:
        if self._direct:
            data = self._text_frames(data)
            if not data:
                if self._batch:
                    self._deliver()
                return
        handshake = self.websocket.state is State.CONNECTING
        self.websocket.receive_data(data)
        if handshake:
            self._direct = self._at_frame_boundary(data)
        self._handle_events()

    def eof_received(self) -> None:
        if self._rest:  # an unfinished frame: the library reports it as it would have
            self._direct = False
            self.websocket.receive_data(b"".join(self._rest))
        self.websocket.receive_eof()
        self._handle_events()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            reason = exc or ConnectionError("the server closed the connection during the handshake")
            self.opened.set_exception(reason)
        if not self.lost.done():
            self.lost.set_result(None)
        self.inbox.end()  # the agent is gone: pending calls fail at once
        self.ended = True
        if self.sink is not None and not self.held:
            self.sink([])
        self.resume_writing()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)
        self._resumed = None

    # -- ours --------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write what the protocol has to send (an empty chunk: the end of our side)."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        chunks = self.websocket.data_to_send()
        if not chunks:
            return
        if chunks[-1] == b"":
            transport.write(b"".join(chunks))
            if transport.can_write_eof():
                transport.write_eof()
            return
        transport.write(b"".join(chunks) if len(chunks) > 1 else chunks[0])

    async def resumed(self) -> None:
        if self.paused and not self.lost.done():
            self._resumed = self._resumed or asyncio.get_running_loop().create_future()
            await self._resumed

    def _handle_events(self) -> None:
        for event in self.websocket.events_received():
            if isinstance(event, Response):
                self._handshake_done()
            elif isinstance(event, Frame):
                self._frame(event)
        if self._batch:
            self._deliver()
        self.flush()  # pongs, our side of a close
        if self.websocket.state is State.CLOSED and self.transport is not None:
            self.transport.close()

    def _handshake_done(self) -> None:
        error = self.websocket.handshake_exc
        if self.opened.done():
            return
        if error is None:
            self.opened.set_result(None)
        else:
            self.opened.set_exception(ConnectionError(f"the server refused the WebSocket: {error}"))

    def _at_frame_boundary(self, data: bytes) -> bool:
        """After the handshake's read: whether the library waits for a frame's first byte (the
        response ended the read), so whole text frames can be read here."""
        websocket = self.websocket
        return (
            websocket.state is State.OPEN
            and not websocket.extensions
            and data.endswith(b"\r\n\r\n")
            and not websocket.reader.buffer
            and not any(isinstance(event, Frame) for event in websocket.events)
        )

    def _text_frames(self, data: bytes) -> bytes:
        """Direct reading: each whole text frame of `data` (FIN, no extension bits, unmasked, in
        the size limit: what the library reads as one message) is taken here; from the first other
        frame on (control, fragment, binary, anything it rejects) the library reads, for good.
        What is left for it is returned."""
        if self._rest:  # joined once it can be read on: linear in the frame's reads
            self._rest.append(data)
            self._rest_size += len(data)
            if self._rest_size < self._needed:
                return b""
            data, self._rest = b"".join(self._rest), []
        at, size, limit = 0, len(data), self.websocket.max_message_size
        needed = 2
        while size - at >= 2:
            length = data[at + 1]
            if data[at] != 0x81 or length & 0x80:  # another frame, or masked (an error)
                self._direct = False
                return data[at:]
            head = 2
            if length == 126:
                length, head = int.from_bytes(data[at + 2 : at + 4], "big"), 4
            elif length == 127:
                length, head = int.from_bytes(data[at + 2 : at + 10], "big"), 10
            needed = head
            if size - at < head:
                break
            if limit is not None and length > limit:
                self._direct = False
                return data[at:]
            end = at + head + length
            needed = head + length
            if end > size:
                break
            payload = data[at + head : end]
            if self.sink is not None and LF not in payload:  # the common message, pushed
                self._batch.append(payload)
            else:
                self._message(payload)
            at, needed = end, 2
        if at < size:
            self._rest, self._rest_size, self._needed = [data[at:]], size - at, needed
        return b""

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            self._binary = opcode is Opcode.BINARY
            self._fragments = [bytes(frame.data)]
        elif opcode is Opcode.CONT and self._fragments is not None:
            self._fragments.append(bytes(frame.data))
        else:
            return  # ping, pong, close: the protocol answers them
        if not frame.fin:
            return
        data = b"".join(self._fragments) if len(self._fragments) > 1 else self._fragments[0]
        self._fragments = None
        if not self._binary:  # "Binary frames are ignored"
            self._message(data)

    def _message(self, data: bytes) -> None:
        """One whole text message: to the sink's batch, or the inbox."""
        line = ndjson_line(data)
        if line is None:
            log.error("the agent sent a message that is not JSON (%d bytes)", len(data))
        elif self.sink is not None:
            self._batch.append(line)
        elif not self.inbox.push(line + b"\n") and self.transport is not None:
            # Over the inbox's bound: stop reading until the connection has taken some (TCP then
            # makes the agent wait).
            self.transport.pause_reading()
            asyncio.get_running_loop().create_task(self._resume_reading())

    # -- push mode -----------------------------------------------------------------------------

    def _deliver(self) -> None:
        """The messages of one read to the sink, in one call; kept while held (past the bound
        the socket stops being read: TCP then makes the agent wait)."""
        sink = self.sink
        assert sink is not None
        batch, self._batch = self._batch, []
        if not self.held:
            sink(batch)
            return
        self._kept += batch
        self._kept_size += sum(map(len, batch))
        transport = self.transport
        if self._kept_size > self.inbox.limit and transport is not None and not self.ended:
            transport.pause_reading()

    def release(self) -> None:
        """Deliver what was kept while held, then each read again as it comes."""
        sink = self.sink
        assert sink is not None
        self.held = False
        if self._kept:
            kept, self._kept, self._kept_size = self._kept, [], 0
            transport = self.transport
            if transport is not None and not transport.is_closing():
                transport.resume_reading()
            sink(kept)
        if self.ended and not self.held:
            sink([])

    async def _resume_reading(self) -> None:
        await self.inbox.room()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.resume_reading()


class WebSocketTransport:
    """A `Transport` over an open WebSocket (see the module)."""

    def __init__(self, protocol: _SocketProtocol, inbox: Inbox) -> None:
        self._protocol = protocol
        self._websocket = protocol.websocket
        self._inbox = inbox
        self._closed = False

    async def read(self) -> bytes:
        return await self._inbox.read()

    def deliver_messages_to(self, sink: MessageSink) -> bool:
        """Push (a `MessageTransport`): hand the messages of each read to `sink` in the callback
        that read them, one event-loop turn earlier than `read()` (on uvloop; False on asyncio's
        loop, as for pipes, or once `read()` has taken something)."""
        protocol = self._protocol
        if protocol.sink is not None:
            raise RuntimeError("the WebSocket already delivers to a sink")
        if loop_name() != "uvloop" or self._inbox.taken:
            return False
        protocol.sink = sink
        waiting = self._inbox.take_all()
        if waiting:  # lines, each a whole message
            sink([line for line in waiting.split(b"\n") if line])
        if protocol.ended:
            protocol.release()  # delivers the end
        return True

    def deliver_to(self, sink: Callable[[bytes], None]) -> bool:
        """Push (a `PushTransport`), as `deliver_messages_to`, each read's messages as NDJSON
        lines in one chunk (`b""` at the end)."""

        def as_lines(messages: list[bytes]) -> None:
            sink(b"".join([message + b"\n" for message in messages]) if messages else b"")

        return self.deliver_messages_to(as_lines)

    def pause_reading(self) -> None:
        self._protocol.held = True

    def resume_reading(self) -> None:
        self._protocol.release()

    def write(self, data: bytes, *, batch: int = 0) -> None:
        if self._closed or self._inbox.ended or self._websocket.state is not State.OPEN:
            raise ConnectionClosed("the WebSocket is closed")
        frames = [text_frame(line) for line in data.split(b"\n") if line]
        protocol = self._protocol
        protocol.flush()  # what the protocol has to send first (a pong)
        transport = protocol.transport
        if frames and transport is not None and not transport.is_closing():
            transport.write(b"".join(frames) if len(frames) > 1 else frames[0])

    def write_message(self, data: bytes) -> None:
        """One message, one text frame (a `MessageTransport`)."""
        if self._closed or self._inbox.ended or self._websocket.state is not State.OPEN:
            raise ConnectionClosed("the WebSocket is closed")
        # (What the library has to send, a pong, left when it read the frame: `_handle_events`.)
        transport = self._protocol.transport
        if transport is not None and not transport.is_closing():
            transport.write(text_frame(data))

    def writing_paused(self) -> bool:
        return self._closed or self._protocol.paused

    async def drain(self) -> None:
        await self._protocol.resumed()

    async def close(self) -> None:
        """Close the socket (1000: the server ends the connection), waiting a moment for the
        server's side of the closing handshake."""
        if self._closed:
            return
        self._closed = True
        protocol = self._protocol
        if self._websocket.state is State.OPEN:
            self._websocket.send_close(1000)
            protocol.flush()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(protocol.lost), _CLOSE_TIMEOUT)
        if protocol.transport is not None:
            protocol.transport.close()
        self._inbox.end()


async def open_websocket(
    url: str, headers: dict[str, str], frame_limit: int, *, verify: bool | ssl.SSLContext = True
) -> WebSocketTransport:
    """A transport over a WebSocket to `url`; `ConnectionError` (one line) when the server
    refuses or cannot be reached. `verify` as for Streamable HTTP (`open_remote`)."""
    uri = parse_uri(url)
    context: ssl.SSLContext | None = None
    if uri.secure:
        context = verify if isinstance(verify, ssl.SSLContext) else ssl.create_default_context()
        if verify is False:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    websocket = ClientProtocol(uri, max_size=frame_limit)
    request = websocket.connect()
    for name, value in headers.items():
        request.headers[name] = value
    websocket.send_request(request)
    inbox = Inbox(frame_limit)
    loop = asyncio.get_running_loop()
    try:
        _, protocol = await loop.create_connection(
            lambda: _SocketProtocol(websocket, inbox),
            uri.host,
            uri.port,
            ssl=context,
            server_hostname=uri.host if context is not None else None,
        )
        await asyncio.wait_for(asyncio.shield(protocol.opened), 30.0)
    except ConnectionError as error:
        raise ConnectionError(f"{url}: {error}") from None
    except (OSError, asyncio.TimeoutError) as error:
        raise ConnectionError(f"{url}: {type(error).__name__}: {error}") from None
    return WebSocketTransport(protocol, inbox)
