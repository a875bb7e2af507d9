"""The agent (layer: negotiation and routing, standard library only): `initialize` chooses the
edition a connection speaks, and every other message goes to that edition's handlers.

v1 (schema/acp/v1): "The protocol version the client specified if supported by the agent, or
the latest protocol version supported by the agent". v2 (schema/acp/v2): "The highest protocol
version supported by the Agent that is at or below the version requested by the Client."
"""

from __future__ import annotations

from typing import Any

from . import v1, v2
from .checks import members, need, typed
from .wire import Connection


class Agent:
    def __init__(self, top: int) -> None:
        self.top = top
        """The newest protocol version served (1, or 2: then 1 as well)."""
        self.connection: Connection | None = None
        self.edition: v1.V1 | v2.V2 | None = None
        self.version = 0

    def connect(self, connection: Connection) -> None:
        self.connection = connection
        self.speak(self.top, {})  # before `initialize`: the newest edition answers

    def speak(self, version: int, client: dict[str, Any]) -> None:
        assert self.connection is not None
        if version != self.version:  # a repeated initialize of the same version keeps the sessions
            self.edition = (
                v2.V2(self.connection, client) if version == 2 else v1.V1(self.connection, client)
            )
            self.version = version
        assert self.edition is not None
        self.edition.client = client  # "The latest successful `initialize` is authoritative"
        self.connection.null_id_ok = version == 1  # v1's RequestId lists null, v2's does not

    async def request(self, method: str, params: Any, request_id: Any) -> Any:
        if method == "initialize":
            return self.initialize(members(params))
        assert self.edition is not None
        return await self.edition.request(method, params, request_id)

    def notification(self, method: str, params: Any) -> None:
        if self.edition is not None:
            self.edition.notification(method, params)

    def initialize(self, p: dict[str, Any]) -> Any:
        """The version: the one asked when served, else the newest served at or below it (v2's
        rule), else, asked below every version (0), the newest served (v1's rule: "or the
        latest protocol version supported by the agent"; a client asking 0 knows v1's rules,
        not v2's -32022). A client asking a version above 1 may be one that knows only v1
        (`clientInfo`, not `info`): v2's `info` is read when present, not required."""
        asked = need(p, "protocolVersion", "uint16")
        if "info" in p:
            info = need(p, "info", "object")
            need(info, "name", "string", "/info")
            need(info, "version", "string", "/info")
        version = self.top if asked < 1 else min(asked, self.top)
        name = "capabilities" if version >= 2 else "clientCapabilities"
        client = p.get(name)
        client = typed(client, "object", f"/{name}") if client is not None else {}
        self.speak(version, client)
        return v2.initialize_result() if version == 2 else v1.initialize_result(version)
