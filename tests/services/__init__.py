"""The services tests start themselves (PostgreSQL, nginx), each on a loopback port of its own."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback TCP port nobody listens on now (the service binds it right after)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
