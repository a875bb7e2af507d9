""" "Clients MUST accept, store, and return cookies set by the server" (the RFD: sticky sessions
behind a load balancer). A server that sets a cookie on its first answer gets it back on every
later request of our Python client, POSTs and streams alike, over Streamable HTTP."""

from __future__ import annotations

from typing import Any

from acp_protocol.v1.agent import http_app
from acp_protocol.v1.client import connect_remote

from tests.interop.our_agent import InteropAgent
from tests.remote.agents import RecordingClient, initialize_request, new_session, prompt
from tests.remote.support import serving


class StickyCookie:
    """ASGI middleware: sets `route=backend-7` on every response; records each request's
    method and `Cookie` header."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, str | None]] = []

    async def close(self) -> None:
        await self.app.close()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        cookie = headers.get(b"cookie")
        self.seen.append((scope["method"], None if cookie is None else cookie.decode()))

        async def sending(event: Any) -> None:
            if event["type"] == "http.response.start":
                event = {
                    **event,
                    "headers": [*event["headers"], (b"set-cookie", b"route=backend-7; Path=/")],
                }
            await send(event)

        await self.app(scope, receive, sending)


async def test_our_client_returns_the_servers_cookie_on_every_request() -> None:
    server = StickyCookie(http_app(InteropAgent))
    async with serving(server) as base:
        client = RecordingClient()
        async with connect_remote(client, base + "/acp") as connection:
            await connection.agent.initialize(initialize_request())
            session_id = (await connection.agent.session_new(new_session())).session_id
            await connection.agent.session_prompt(prompt(session_id, "stream"))
    first, *later = server.seen
    assert first == ("POST", None)
    assert {method for method, _ in later} >= {"POST", "GET"}
    assert all(cookie == "route=backend-7" for _, cookie in later), later
