"""Several protocol versions on one connection, chosen by `initialize`: one agent for clients of
every version (`VersionRouter` served), and a client that asks for its newest version and goes on
in the one the agent answers (`connect_versions`).

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

from .behaviour import Negotiation
from .connection import Connection
from .errors import InvalidRequest
from .request_state import RequestContext
from .roles import Router
from .transports.transport import Transport


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

    def choose(self, version: int) -> Router[Any]:
        """From now on the router of `version` serves the connection (the client side, once the
        agent answered `initialize`)."""
        self._chosen, self.version = self._routers[version], version
        return self._chosen

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


async def connect_versions(
    transport: Transport,
    routers: Mapping[int, Router[Any]],
    negotiation: Negotiation,
    initialize: Mapping[int, Mapping[str, Any]],
    **options: Any,
) -> tuple[Connection, Router[Any], Any]:
    """Start a connection on `transport`, send `initialize` asking for the newest version of
    `routers` and continue with the router of the version the agent answers ("the highest
    protocol version supported by the agent that is at or below the version requested"): the
    connection, that router (not bound yet: the typed connection binds it) and the answer.

    `initialize` holds each version's params but `protocolVersion`, sent as one object (older
    versions' first, the newest's win where two share a key; an agent ignores fields its version
    does not know). An answer in a version not offered closes the connection: `InvalidRequest`
    with `{answered, offered}`."""
    chooser = VersionRouter(routers, method=negotiation.method)
    connection = Connection(transport, chooser, **options)
    connection.start()
    versions = sorted(routers)
    params: dict[str, Any] = {}
    for version in versions:
        params.update(initialize.get(version, {}))
    params[negotiation.field] = versions[-1]
    try:
        answer = await connection.request(negotiation.method, params)
        answered = answer.get(negotiation.field) if isinstance(answer, dict) else None
        if not isinstance(answered, int) or answered not in routers:
            raise InvalidRequest(
                "The agent answered a protocol version this client does not offer",
                data={"answered": answered, "offered": versions},
            )
        return connection, chooser.choose(answered), answer
    except BaseException:
        await connection.close()
        raise
