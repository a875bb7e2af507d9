"""A TCP proxy in front of a PostgreSQL server that counts the round trips its clients make.

A round trip is the client sending after the server last spoke (or first): however a driver
splits its messages into writes, a pipeline or a batch sent before any answer is one, and each
statement that waits for its answer before the next is sent is one more. The tests hold the
stores' figures with it (tests/runtime/test_session_store_round_trips.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit


class RoundTrips:
    """`async with RoundTrips(dsn) as proxy`: `proxy.dsn` reaches the server through it;
    `proxy.count` is every connection's round trips so far."""

    def __init__(self, dsn: str) -> None:
        self._target = urlsplit(dsn)
        self.count = 0
        self.dsn = ""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> RoundTrips:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        netloc = f"{self._target.username}@127.0.0.1:{port}"
        self.dsn = urlunsplit(self._target._replace(netloc=netloc))
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, client: asyncio.StreamReader, to_client: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        host, port = self._target.hostname, self._target.port
        server, to_server = await asyncio.open_connection(host, port)
        last = ["server"]

        async def pump(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, side: str
        ) -> None:
            try:
                while data := await reader.read(65536):
                    if side == "client" and last[0] == "server":
                        self.count += 1
                    last[0] = side
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    writer.close()

        try:
            await asyncio.gather(
                pump(client, to_server, "client"), pump(server, to_client, "server")
            )
        finally:
            self._tasks.discard(task)
