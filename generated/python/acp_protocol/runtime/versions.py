# Copied by acp-codegen from templates/python/runtime/versions.py. Do not edit here:
# edit the source, then run `make generate`.

"""One agent for several protocol versions on one connection, chosen by `initialize`.

Layer: typed layer (a `Handler` in front of one generated router per protocol version).

Like the official TypeScript SDK's `AgentProtocolRouter`: until a valid `initialize` has been
answered, notifications (and responses) are ignored and any other request gets `-32600`;
`initialize` goes to the implementation of the highest version at or below the one asked
(InitializeResponse.protocolVersion: "The highest protocol version supported by the agent that is
at or below the version requested by the client"), or, when none is, to the lowest, whose own
negotiation answers (v1: its version; v2: `-32022`). Once an `initialize` succeeded the
connection stays with that implementation: it is never re-routed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from .connection import Connection
from .errors import InvalidRequest
from .request_state import RequestContext
from .roles import Router


class VersionRouter:
    """The `Handler` of a connection served by one router per protocol version."""

    def __init__(self, routers: Mapping[int, Router[Any]], *, method: str = "initialize") -> None:
        if not routers:
            raise ValueError("serve at least one protocol version")
        self._routers = dict(sorted(routers.items()))
        self._method = method
        self._chosen: Router[Any] | None = None
        self.version: int | None = None
        """The protocol version the connection speaks, once `initialize` succeeded."""
        self.peers: dict[int, Any] = {}

    def bind(self, connection: Connection) -> None:
        self.peers = {version: r.bind(connection) for version, r in self._routers.items()}

    def select(self, asked: Any) -> int:
        """The version whose implementation answers an `initialize` asking for `asked`."""
        versions = list(self._routers)
        if isinstance(asked, int) and not isinstance(asked, bool):
            below = [v for v in versions if v <= asked]
            return below[-1] if below else versions[0]
        return versions[-1]  # not a version: the newest implementation's checks answer it

    async def handle_request(self, method: str, params: Any, context: RequestContext) -> Any:
        chosen = self._chosen
        if chosen is not None:
            return await chosen.handle_request(method, params, context)
        if method != self._method:
            raise InvalidRequest(f"{method} before {self._method}: initialize the connection first")
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        version = self.select(asked)
        router = self._routers[version]
        result = await router.handle_request(method, params, context)
        self._chosen, self.version = router, version
        return result

    def handle_notification(self, method: str, params: Any) -> Awaitable[None] | None:
        chosen = self._chosen
        return None if chosen is None else chosen.handle_notification(method, params)


class VersionedConnection:
    """A connection serving one agent per protocol version; `version` and `peer` (the client as
    the chosen edition's typed handle) once `initialize` succeeded."""

    def __init__(self, connection: Connection, router: VersionRouter) -> None:
        self.connection = connection
        self._router = router
        router.bind(connection)

    @property
    def version(self) -> int | None:
        return self._router.version

    @property
    def peer(self) -> Any:
        version = self._router.version
        return None if version is None else self._router.peers[version]

    async def __aenter__(self) -> VersionedConnection:
        self.connection.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.connection.close()

    async def wait_closed(self) -> None:
        await self.connection.wait_closed()

    async def close(self) -> None:
        await self.connection.close()
