# Copied by acp-codegen from templates/python/runtime/bridge/serve.py. Do not edit here:
# edit the source, then run `make generate`.

"""`bridge serve`: a stdio agent over Streamable HTTP and WebSocket, one child per connection.

Layer: transport. The HTTP server (`transports.http_server.AcpHttpServer`) serves whatever its
`connect(transport)` returns for each connection (its `Served` protocol), on that connection's
byte transport (`HttpConnection`): here an `AgentProcess`, which starts the agent's command and
copies bytes both ways, with no JSON-RPC in between. What the client posts reaches the child's
stdin as it came; what the child writes is split into lines (the frame limit applies) and each
line is handed to the server as it was written, which routes it to the stream the RFD names
(reading it, never rewriting it). So ids pass byte for byte and `$/cancel_request` is a frame
like any other.

The child never outlives its connection: when the client leaves (DELETE, a closed WebSocket, the
idle timeout, the bridge's shutdown) its stdin is closed, it gets `exit_timeout` seconds to exit,
then its whole process group gets SIGTERM and SIGKILL (`transports.process`). When the child
exits, its connection ends (the client's pending calls fail at once).

With a recording folder (`bridge serve --trace DIR`) each connection is recorded into a file of
its own, `DIR/<UTC time>-<connection id>.jsonl`, in `acp_protocol.trace`'s format (`sent`: what
the client posted, `received`: what the agent wrote, and the agent's exit status): each frame is
forwarded first, then recorded. A file that cannot be opened is one warning and the connection
goes on unrecorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from ...trace.record import Lines, Recording
from ..errors import ConnectionClosed
from ..transports.http_policy import HttpServerOptions
from ..transports.http_server import AcpHttpServer
from ..transports.process import ProcessTransport, spawn_process
from ..transports.remote import EXTRA, MissingExtra
from ..transports.transport import FrameReader, OversizedFrame, Transport

log = logging.getLogger(__name__)


class AgentProcess:
    """One connection's agent: a child process whose stdin/stdout carry the connection's frames
    unchanged. A `Served` (`async with`, `wait_closed`) for `AcpHttpServer`."""

    def __init__(
        self,
        transport: Transport,
        command: Sequence[str],
        *,
        frame_limit: int,
        exit_timeout: float = 2.0,
        children: set[ProcessTransport] | None = None,
        trace: Path | None = None,
    ) -> None:
        self._transport = transport
        self._trace = trace
        self._recording: Recording | None = None
        self._command = list(command)
        self._frame_limit = frame_limit
        self._exit_timeout = exit_timeout
        self._children = children if children is not None else set()
        self._child: ProcessTransport | None = None
        self._done = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def pid(self) -> int | None:
        """The child's process id (None until started, or when it could not be)."""
        return None if self._child is None else self._child.pid

    async def __aenter__(self) -> AgentProcess:
        try:
            child = await spawn_process(*self._command, exit_timeout=self._exit_timeout)
        except OSError as error:  # the connection ends at once (initialize: 502)
            log.error("cannot start the agent %s: %s", self._command[0], error)
            self._done.set()
            return self
        self._child = child
        self._children.add(child)
        log.info("agent started (pid %d)", child.pid)
        if self._trace is not None:
            self._recording = self._record_into(self._trace)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._to_agent(child)),
            loop.create_task(self._to_client(child)),
        ]
        return self

    async def wait_closed(self) -> None:
        """Until the client leaves or the agent ends its output."""
        await self._done.wait()

    async def __aexit__(self, *exc_info: object) -> None:
        child = self._child
        if child is None:
            return
        try:
            await child.close()  # stdin closed, then the whole process group ended
        finally:
            self._children.discard(child)
            to_agent, to_client = self._tasks
            to_agent.cancel()
            # The child's last output is on its way to the client while the connection lasts.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(to_client), 1.0)
            to_client.cancel()
            await asyncio.gather(to_agent, to_client, return_exceptions=True)
            status = child.process.poll()
            if status:
                log.warning("the agent (pid %d) exited with status %d", child.pid, status)
            recording = self._recording
            if recording is not None:
                if status is not None:
                    recording.exit(status)
                recording.out.close()
                self._recording = None

    def _record_into(self, folder: Path) -> Recording | None:
        """This connection's recording, `folder/<UTC time>-<connection id>.jsonl`."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        connection_id = getattr(self._transport, "id", None) or uuid.uuid4().hex
        path = folder / f"{stamp}-{connection_id}.jsonl"
        try:
            return Recording(path.open("wb", buffering=0), self._command)
        except OSError as error:
            log.warning("cannot record into %s: %s; not recorded", path, error.strerror or error)
            return None

    async def _to_agent(self, child: ProcessTransport) -> None:
        """The client's frames to the child's stdin, as they came; the client's end ends it."""
        transport = self._transport
        recording = self._recording
        lines = None if recording is None else Lines(lambda got: recording.frames("sent", got))
        try:
            while data := await transport.read():
                child.write(data)
                if lines is not None:
                    lines.feed(data)
                if child.writing_paused():
                    await child.drain()
            if lines is not None:
                lines.close()
        except ConnectionClosed:  # the child stopped reading (it exited)
            pass
        finally:
            self._done.set()

    async def _to_client(self, child: ProcessTransport) -> None:
        """The child's lines to the connection, each as it was written; its end ends it."""
        transport = self._transport
        reader = FrameReader(child.read, self._frame_limit)
        try:
            while (lines := await reader.next_lines()) is not None:
                frames = [line for line in lines if not isinstance(line, OversizedFrame)]
                if len(frames) < len(lines):
                    log.error("the agent wrote a frame over the limit: dropped")
                if frames:
                    transport.write(b"\n".join(frames) + b"\n")
                    if self._recording is not None:
                        self._recording.frames("received", frames)
                    if transport.writing_paused():
                        await transport.drain()
        except ConnectionClosed:  # the client stopped reading, or its connection ended
            pass
        finally:
            self._done.set()


def bridge_app(
    command: Sequence[str],
    options: HttpServerOptions | None = None,
    *,
    exit_timeout: float = 2.0,
    children: set[ProcessTransport] | None = None,
    trace: Path | None = None,
) -> AcpHttpServer:
    """An ASGI app serving the stdio agent `command` at `/acp`, one child per connection (run it
    under any ASGI server; `bridge serve` runs it under uvicorn). `children` (if given) holds the
    live children's transports, for a last-resort kill at exit (`kill_children`); `trace` (a
    folder) records each connection into a file of its own."""
    served = options or HttpServerOptions()
    live = children if children is not None else set()
    return AcpHttpServer(
        lambda transport: AgentProcess(
            transport,
            command,
            frame_limit=served.frame_limit,
            exit_timeout=exit_timeout,
            children=live,
            trace=trace,
        ),
        served,
    )


def kill_children(children: set[ProcessTransport]) -> None:
    """SIGKILL the process group of every child still listed (the bridge is exiting and they did
    not end in time)."""
    for child in list(children):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        children.discard(child)


async def serve(
    command: Sequence[str],
    listener: socket.socket,
    options: HttpServerOptions,
    *,
    exit_timeout: float = 2.0,
    log_level: str = "warning",
    certfile: str | None = None,
    keyfile: str | None = None,
    trace: Path | None = None,
) -> None:
    """Serve `command` on `listener` (a bound TCP socket, see `listen`) under uvicorn until
    SIGINT or SIGTERM; then every connection is ended and its child with it, before uvicorn
    waits for its HTTP connections (an open event stream would otherwise hold it forever).
    `certfile` (PEM, the chain) and `keyfile`: serve HTTPS and WSS (uvicorn's TLS); `trace`: a
    folder where each connection is recorded (`AgentProcess`)."""
    try:
        import uvicorn

        from ..transports.uvicorn_ws import AcpWebSocket
    except ImportError:
        raise MissingExtra(f"bridge serve needs uvicorn: {EXTRA}") from None
    children: set[ProcessTransport] = set()
    app = bridge_app(command, options, exit_timeout=exit_timeout, children=children, trace=trace)

    class BridgeServer(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await app.close()
            kill_children(children)
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app,
        lifespan="off",
        ws=AcpWebSocket,  # each frame to the connection as it is read (transports/uvicorn_ws)
        ws_max_size=options.frame_limit,
        # ACP frames are small JSON: compressing each one costs more than it saves, and a client
        # that offers permessage-deflate (ws, browsers) would get it: rt64 went 34k → 17k/s.
        ws_per_message_deflate=False,
        log_config=None,
        log_level=log_level,
        access_log=False,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
    )
    try:
        await BridgeServer(config).serve(sockets=[listener])
    finally:
        await app.close()
        kill_children(children)


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on `host`:`port` (0: the system picks), for `serve`; OSError (the
    address is in use, the host unknown) before anything starts."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # uvicorn leaves a socket it is given as it is: without this a response's head and body
        # are two writes and the second waits for the client's delayed ACK (40 ms).
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind(address)
        listener.listen(2048)  # from now on clients wait in the backlog until uvicorn accepts
    except OSError:
        listener.close()
        raise
    return listener


def endpoint(listener: socket.socket, path: str, *, tls: bool = False) -> str:
    """`http://host:port/acp` (`https://` with `tls`) for a bound socket (its port when the
    system picked it)."""
    host, port = listener.getsockname()[:2]
    scheme = "https" if tls else "http"
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}{path}"
