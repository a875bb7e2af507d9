"""uvicorn's WebSocket with ACP's messages handed straight to the connection: `AcpWebSocket`.

Layer: transport. Needs the `http` extra (uvicorn 0.35+, websockets). Serve `http_app` with
`uvicorn.Config(app, ws=AcpWebSocket)` or `uvicorn my_server:app --ws
acp_protocol.runtime.transports.uvicorn_ws:AcpWebSocket`; under any other ASGI server (or
uvicorn's own WebSocket) the app runs as it always did, through ASGI's `receive` and `send`.

uvicorn's `websockets-sansio` protocol passes each text message to the app as an ASGI event: it
decodes it to `str`, queues it, stops reading the socket (`pause_reading`) until the app's
`receive()` takes it and starts again (`resume_reading`): two `epoll_ctl` system calls, a queue
and a task switch per message, then our `_send_frames` task, a `str` and the library's `Frame`
per message sent. Here the app is offered the scope extension `acp.websocket.direct` (this
protocol, a `DirectWebSocket`): a text message goes to the connection in the callback that read
it, and the agent's messages leave as text frames in one `write()` per call; the handshake,
ping/pong, the closing handshake, limits and every other event stay uvicorn's. The RFD: "All
messages are WebSocket text frames containing JSON-RPC. Binary frames are ignored."

Once attached, the socket reads the common frame itself: a whole, masked text frame of one
fragment, no extension (RFC 6455 5.2: `FIN`, no `RSV` bit, opcode 1, `MASK`), up to the size
limit. It unmasks the payload (websockets' `apply_mask`) and hands it over as the library's
parser would, for about a tenth of the parser's cost. Every other frame (ping, pong, close,
binary, a fragment, an unmasked or oversized frame) goes to the library whole, one frame at a
time, so its parser always starts at a frame boundary and answers it as it always did. The app
attaches in the event-loop turn that sends the handshake's answer, so no frame has been read by
then; should the library hold part of one, the socket leaves all reading to the library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # websockets installed without its C extension
    from websockets.utils import apply_mask

from .http_connection import DIRECT
from .ws_frames import server_text_frame


class AcpWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's `websockets-sansio` WebSocket protocol, with the `acp.websocket.direct`
    extension (see the module). Pass the class as uvicorn's `ws`."""

    _receiver: Callable[[bytes], None] | None = None
    _held = False
    _kept: list[bytes] | None = None
    _parts: list[bytes | bytearray | memoryview] | None = (
        None  # the fragments of the text message being read
    )
    _binary = False  # the message being read is binary
    _direct = False  # frames are read here (see the module), not by the library
    _rest: bytearray | None = None  # direct: the start of a frame not read whole yet
    _limit: int | None = None  # direct: the library's size limit of a message
    _fragments = "current_size"  # direct: the library's field set while fragments come
    _write_paused = False  # uvicorn's `pause_writing` until its `resume_writing`

    # -- uvicorn's side ------------------------------------------------------------------------

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was refused
        if scope is not None:
            scope["extensions"][DIRECT] = {"socket": self}

    def data_received(self, data: bytes) -> None:
        if not self._direct:
            super().data_received(data)
            return
        rest = self._rest
        if rest:  # appended to in place: a long frame in many reads costs its length once
            rest += data
            buffer: bytes | bytearray = rest
        else:
            buffer = data
        size = len(buffer)
        start = 0
        while size - start >= 2:
            first, second = buffer[start], buffer[start + 1]
            length = second & 0x7F
            if length < 126:
                head = 2
            elif length == 126:
                if size - start < 4:
                    break
                length, head = int.from_bytes(buffer[start + 2 : start + 4], "big"), 4
            else:
                if size - start < 10:
                    break
                length, head = int.from_bytes(buffer[start + 2 : start + 10], "big"), 10
            if second & 0x80:
                head += 4
            if self._limit is not None and length > self._limit:  # the library refuses it (1009)
                self._direct = False
                self._rest = None
                super().data_received(bytes(buffer[start:]))
                return
            end = start + head + length
            if end > size:
                break
            conn = self.conn
            if (
                first == 0x81
                and second & 0x80
                and getattr(conn, self._fragments) is None  # not inside a fragmented message
                and conn.state is State.OPEN
                and not conn.extensions
            ):
                mask = buffer[end - length - 4 : end - length]
                self._binary = False
                self._text(apply_mask(buffer[end - length : end], mask))
            else:  # any other frame: the library's, whole
                super().data_received(bytes(buffer[start:end]))
                if not self._plain():
                    self._direct = False
                    self._rest = None
                    if end < size:
                        super().data_received(bytes(buffer[end:]))
                    return
            start = end
        if start >= size:
            self._rest = None
        elif buffer is rest:
            del rest[:start]
        else:
            self._rest = bytearray(buffer[start:])

    def _plain(self) -> bool:
        """Whether frames can be read here: the connection open, no extension."""
        return self.conn.state is State.OPEN and not self.conn.extensions

    def handle_text(self, event: Frame) -> None:
        if self._receiver is None:
            super().handle_text(event)
            return
        self._binary = False
        if event.fin:
            self._parts = None
            self._text(event.data)
        else:
            self._parts = [event.data]

    def handle_bytes(self, event: Frame) -> None:
        if self._receiver is None:
            super().handle_bytes(event)
            return
        self._binary = True  # "Binary frames are ignored", and their continuations
        self._parts = None

    def handle_cont(self, event: Frame) -> None:
        if self._receiver is None or (self._parts is None and not self._binary):
            super().handle_cont(event)  # a message begun before `attach`: uvicorn's
            return
        if self._parts is not None:
            self._parts.append(event.data)
            if event.fin:
                parts, self._parts = self._parts, None
                self._text(b"".join(parts))

    def _text(self, message: bytes | bytearray | memoryview) -> None:
        """A whole text message: to the receiver (kept while reading is paused)."""
        assert self._receiver is not None
        if self.close_sent:
            return  # as uvicorn: the app is past `websocket.close`
        data = message if type(message) is bytes else bytes(message)
        if not data.isascii():
            try:
                data.decode()
            except UnicodeDecodeError:  # as uvicorn: RFC 6455 8.1, close 1007
                self.logger.warning("Invalid UTF-8 sequence received from client.")
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
        if self._held:
            assert self._kept is not None
            self._kept.append(data)
        else:
            self._receiver(data)

    # -- the app's side (`DirectWebSocket`) ----------------------------------------------------

    def attach(self, receiver: Callable[[bytes], None]) -> None:
        """From now on each text message (its UTF-8 bytes) goes to `receiver`, not to
        `receive()`; binary messages are dropped."""
        self._receiver = receiver
        self._kept = []
        # Frames read here from now on, unless the library holds part of one already.
        fields = _library_fields(self.conn)
        if fields is not None:
            self._limit, self._fragments = fields
        self._direct = fields is not None and self._plain() and not self.conn.reader.buffer

    def pause_reading(self) -> None:
        """Stop reading the socket; the messages of what was already read wait."""
        if not self._held:
            self._held = True
            if not self.transport.is_closing():
                self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Deliver what waited (until paused again), then read the socket again."""
        if not self._held or self._receiver is None:
            return
        self._held = False
        kept = self._kept
        assert kept is not None
        while kept and not self._held:
            self._receiver(kept.pop(0))
        if not self._held and not self.read_paused and not self.transport.is_closing():
            self.transport.resume_reading()

    def send_texts(self, payloads: list[bytes]) -> bool:
        """Each payload one text frame, all in one write; False (nothing sent) once the socket
        is closing or closed."""
        if self.close_sent or self.transport.is_closing():
            return False
        if not payloads:
            return True
        if self.conn.extensions:  # permessage-deflate: the library compresses each frame
            for payload in payloads:
                self.conn.send_text(payload)
            self.transport.write(b"".join(self.conn.data_to_send()))
        else:
            frames = [server_text_frame(payload) for payload in payloads]
            self.transport.write(frames[0] if len(frames) == 1 else b"".join(frames))
        return True

    def send_text(self, payload: bytes) -> bool:
        """One payload, one text frame (`send_texts` of one, without the list)."""
        if self.close_sent or self.transport.is_closing():
            return False
        if self.conn.extensions:
            return self.send_texts([payload])
        self.transport.write(server_text_frame(payload))
        return True

    def writing_paused(self) -> bool:
        """The socket's buffer is over its high-water mark (uvicorn's `pause_writing`): the
        writer should wait, so that what is written goes out while more is made. (A flag kept
        beside uvicorn's `writable` event: asked after every write.)"""
        return self._write_paused

    def pause_writing(self) -> None:
        self._write_paused = True
        super().pause_writing()

    def resume_writing(self) -> None:
        self._write_paused = False
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._write_paused = False  # as uvicorn sets `writable`: a waiting writer goes on
        super().connection_lost(exc)

    async def writable_again(self) -> None:
        """Return once the socket's buffer is below its low-water mark (or the socket is gone)."""
        await self.writable.wait()


def _library_fields(conn: Any) -> tuple[int | None, str] | None:
    """The library's size limit of a message and the name of its field that is not None while a
    message comes in fragments (RFC 6455 5.4: a new data frame is then a protocol error, for the
    library to answer): websockets 15+ `max_message_size` and `current_size`, before `max_size`
    and `cur_size`; None when this websockets names neither (the library then reads every
    frame)."""
    for limit, fragments in (("max_message_size", "current_size"), ("max_size", "cur_size")):
        if hasattr(conn, limit) and hasattr(conn, fragments):
            return getattr(conn, limit), fragments
    return None


__all__ = ["DIRECT", "AcpWebSocket", "server_text_frame"]
