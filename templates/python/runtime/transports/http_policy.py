"""What the HTTP server accepts: its options (each limit configurable) and its checks.

Layer: transport. Safe by default:

- `Origin`: "Servers MUST validate the Origin header on all incoming connections to prevent DNS
  rebinding attacks" (MCP's Streamable HTTP, which the ACP RFD adopts): a request that carries an
  `Origin` outside `allowed_origins` is refused 403. Programs that are not browsers send none.
- A bearer token, when one is set: `Authorization: Bearer <token>`, compared in constant time;
  401 otherwise.
- Limits: body size (the frame limit: 413), bytes buffered per connection (429 for the client's
  messages past it; our own writes wait), connections (429), sessions per connection (429), idle
  time (the connection is ended), ids longer than `MAX_ID_LENGTH` (400).
- Connection ids are 256 random bits from the operating system's CSPRNG (`secrets`).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from .transport import DEFAULT_FRAME_LIMIT


@dataclass(frozen=True)
class HttpServerOptions:
    """The HTTP server's options; every limit has a default and can be changed."""

    path: str | None = "/acp"
    """The endpoint ("A single `/acp` endpoint"); None serves every path (mounted under one)."""
    allowed_origins: frozenset[str] = field(default_factory=frozenset)
    """Origins (`scheme://host[:port]`) whose browsers may connect; requests without `Origin`
    are always accepted (they do not come from a web page)."""
    token: str | None = None
    """When set, every request needs `Authorization: Bearer <token>`."""
    frame_limit: int = DEFAULT_FRAME_LIMIT
    """The largest message (a POST body, a WebSocket message), in bytes: 413 past it."""
    max_buffered_bytes: int = 8 * 1024 * 1024
    """Per connection: the client's messages waiting for the agent (429 past it), and the
    agent's waiting for the client to read them (the agent's writes wait past it)."""
    output_stall_timeout: float = 60.0
    """Seconds a connection over `max_buffered_bytes` waits for its client to read any of it
    before it is ended (a client that stopped reading, or never opens the stream)."""
    max_connections: int = 1024
    """Connections open at once (HTTP and WebSocket): 429 past it."""
    max_sessions: int = 1024
    """Sessions per connection: 429 past it."""
    idle_timeout: float = 300.0
    """Seconds an HTTP connection lives with no request and no stream open (abandoned)."""
    initialize_timeout: float = 30.0
    """Seconds the agent has to answer `initialize` (504 after)."""
    keepalive: float = 15.0
    """Seconds of silence after which an SSE stream gets a comment, so proxies keep it open."""
    route: str | None = None
    """This process's name behind a load balancer (lowercase letters and digits): put before a
    dot in every `Acp-Connection-Id` it hands out (`a.<random>`), so a proxy sends the requests
    of a connection to the process that holds it (deploy/nginx/acp.conf, docs/scale.md)."""

    def __post_init__(self) -> None:
        for name in ("frame_limit", "max_buffered_bytes", "max_connections", "max_sessions"):
            if getattr(self, name) <= 0:
                raise ValueError(f"HttpServerOptions.{name} must be positive")
        origins = self.allowed_origins
        if isinstance(origins, str) or not isinstance(origins, Iterable):
            raise TypeError("HttpServerOptions.allowed_origins is a set of origins")
        object.__setattr__(self, "allowed_origins", frozenset(o.rstrip("/") for o in origins))
        if self.route is not None and not (self.route.isascii() and self.route.isalnum()):
            raise ValueError("HttpServerOptions.route is lowercase letters and digits")
        if self.route is not None and self.route != self.route.lower():
            raise ValueError("HttpServerOptions.route is lowercase letters and digits")

    def origin_allowed(self, origin: str | None) -> bool:
        """No `Origin` (not a browser), or one of `allowed_origins`."""
        return origin is None or origin.rstrip("/") in self.allowed_origins

    def authorized(self, authorization: str | None) -> bool:
        """No token set, or `Authorization: Bearer <token>` (compared in constant time)."""
        if self.token is None:
            return True
        if authorization is None:
            return False
        scheme, _, credentials = authorization.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(credentials.strip().encode(), self.token.encode())


def new_connection_id(route: str | None = None) -> str:
    """256 bits from the CSPRNG, URL-safe: an `Acp-Connection-Id` nobody can guess; after
    `route` and a dot when the server has one."""
    token = secrets.token_urlsafe(32)
    return token if route is None else f"{route}.{token}"
