"""The connections of the remote transport's server: opened, found by id, ended when abandoned.

Layer: transport. `AcpHttpServer` (`http_server`) routes each request; this table holds what it
routes to. Opening a connection starts its ACP `Connection` (`connect(transport)`) on a fresh
`HttpConnection` (256 random bits, `http_policy`), refused 429 past `max_connections`; an HTTP
connection nobody has used for `idle_timeout` seconds is ended (abandoned); `close()` ends them
all. The RFD "Streamable HTTP & WebSocket Transport": "No Acp-Connection-Id? → 400;  Unknown
Acp-Connection-Id? → 404", and for a WebSocket "On disconnect, the server cleans up the
connection" (its transport is closed whatever happens to its agent).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from .http_connection import HttpConnection, SessionOwners
from .http_policy import HttpServerOptions, new_connection_id
from .http_routing import Refused
from .transport import Transport

log = logging.getLogger(__name__.rpartition(".")[0] + ".http_server")  # the server's, as before


class Served(Protocol):
    """What `connect` returns: a `Connection`, or the typed layer's `AgentConnection`."""

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc_info: object) -> Any: ...

    async def wait_closed(self) -> None: ...


class ConnectionTable:
    """The server's open connections by `Acp-Connection-Id`, each served until it closes."""

    def __init__(self, connect: Callable[[Transport], Served], options: HttpServerOptions) -> None:
        self._connect = connect
        self._options = options
        self._connections: dict[str, HttpConnection] = {}
        self._owners = SessionOwners()
        self._tasks: set[asyncio.Task[None]] = set()
        self._reaper: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._connections)

    def open(self, *, websocket: bool) -> HttpConnection:
        """A new connection with its agent started, or 429 past the limit (500: no agent)."""
        if len(self._connections) >= self._options.max_connections:
            raise Refused(429, "Too many connections")
        connection = HttpConnection(
            new_connection_id(self._options.route),
            self._options,
            self._owners,
            websocket=websocket,
            on_close=self._forget,
        )
        try:
            served = self._connect(connection)
        except Exception as error:
            log.exception("the agent could not be started")
            raise Refused(500, f"The agent could not be started: {error}") from None
        self._connections[connection.id] = connection
        task = asyncio.get_running_loop().create_task(_run(served, connection))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap_idle())
        return connection

    def find(self, connection_id: str | None) -> HttpConnection:
        """The open HTTP connection of an `Acp-Connection-Id` header (400 none, 404 unknown)."""
        if connection_id is None:
            raise Refused(400, "Missing Acp-Connection-Id")
        connection = self._connections.get(connection_id)
        if connection is None or connection.closed or connection.websocket:
            raise Refused(404, "Unknown Acp-Connection-Id")
        return connection

    async def close(self) -> None:
        """End every connection (its agent sees the client leave) and wait for them."""
        for connection in list(self._connections.values()):
            connection.end_input()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=10)
        if self._reaper is not None:
            self._reaper.cancel()

    def _forget(self, connection: HttpConnection) -> None:
        if self._connections.get(connection.id) is connection:
            del self._connections[connection.id]

    async def _reap_idle(self) -> None:
        """End HTTP connections nobody has used for `idle_timeout` seconds (abandoned)."""
        while self._connections:
            await asyncio.sleep(min(self._options.idle_timeout / 4, 30.0))
            self._end_idle(asyncio.get_running_loop().time() - self._options.idle_timeout)

    def _end_idle(self, before: float) -> None:
        for connection in list(self._connections.values()):
            if not connection.websocket and connection.idle() and connection.last_active < before:
                log.info("connection %s idle: ended", connection.id[:8])
                connection.end_input()


async def _run(served: Served, connection: HttpConnection) -> None:
    """Serve one connection until it closes; its transport is closed whatever happens."""
    try:
        async with served:
            await served.wait_closed()
    except Exception:
        log.exception("connection %s failed", connection.id[:8])
    finally:
        await connection.close()
