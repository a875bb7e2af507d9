# Copied by acp-codegen from templates/python/runtime/transports/remote.py. Do not edit here:
# edit the source, then run `make generate`.

"""A remote agent by URL: the client side of ACP's remote transport, chosen by the URL's scheme.

Layer: transport. `open_remote("http(s)://host/acp")` speaks Streamable HTTP (`http_client`),
`open_remote("ws(s)://host/acp")` a WebSocket (`ws_client`); either is a `Transport` like a
spawned agent's stdin/stdout, so the same typed client runs on it (`connect_remote` in each
edition's client module). The libraries come with the `http` extra; without them this module
still imports, and opening a remote agent fails with one line naming the extra.
"""

from __future__ import annotations

import ssl
import sys
from collections.abc import Mapping
from urllib.parse import urlsplit

from .transport import DEFAULT_FRAME_LIMIT, Transport

EXTRA = "pip install 'acp-protocol-sdk[http]'"
_OURS = __name__.rsplit(".runtime.", 1)[0]
"""This package's name (`acp_protocol`, or where it was vendored): its modules are no extra's."""


class MissingExtra(ImportError):
    """A library of the `http` extra is not installed."""


async def open_remote(
    url: str,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    frame_limit: int = DEFAULT_FRAME_LIMIT,
    http2: bool = True,
    verify: bool | ssl.SSLContext = True,
) -> Transport:
    """A transport to the ACP agent at `url` (`http://`, `https://`, `ws://` or `wss://`).

    `token`: sent as `Authorization: Bearer <token>`; `headers`: sent with every request;
    `http2`: offer HTTP/2 over TLS (the RFD requires it; plain `http://` stays HTTP/1.1);
    `verify`: check the server's TLS certificate (`True`, against the system's authorities), or
    not (`False`), or against the authorities of an `ssl.SSLContext`
    (`ssl.create_default_context(cafile=...)`: a server with a certificate of its own); the same
    for `https://` and `wss://`. Raises `MissingExtra` without the `http`
    extra, `ValueError` for another scheme, `ConnectionError` when a WebSocket is refused.
    """
    scheme = urlsplit(url).scheme.lower()
    sent = dict(headers or {})
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    try:
        if scheme in ("http", "https"):
            from .http_client import open_streamable_http

            return await open_streamable_http(url, sent, frame_limit, http2=http2, verify=verify)
        if scheme in ("ws", "wss"):
            from .ws_client import open_websocket

            return await open_websocket(url, sent, frame_limit, verify=verify)
    except ImportError as error:
        missing = _missing_library(error)
        if missing is None:
            raise
        raise MissingExtra(
            f"remote agents need the http extra ({missing} is missing): {EXTRA}"
        ) from None
    raise ValueError(f"a remote agent's URL starts with http(s):// or ws(s)://, not {url!r}")


def _missing_library(error: ImportError) -> str | None:
    """The library an import failed for, when it is one the `http` extra brings: any module that
    is neither the standard library's nor this package's (httpx, httpcore, httpx-sse, websockets,
    and what they import in turn), or h2, which httpx asks for by message only."""
    name = error.name or ""
    if not name:
        return "h2" if "h2" in str(error) else None
    if name == _OURS or name.startswith(_OURS + "."):
        return None
    top = name.split(".")[0]
    return None if top in sys.stdlib_module_names else top
