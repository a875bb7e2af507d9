# Copied by acp-codegen from templates/python/runtime/handler_context.py. Do not edit here:
# edit the source, then run `make generate`.

"""What a typed handler gets besides its params: its request's id, cancellation and the peer.

Layer: typed layer (the runtime half; `roles.Router` makes one per request or notification).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .frames import RequestId
from .peer import Peer
from .request_state import CancelSource, RequestContext

PeerT = TypeVar("PeerT", bound=Peer)


class HandlerContext(Generic[PeerT]):
    """What a typed handler gets besides its params.

    `peer` is the other side as a typed handle. Requests made through it while handling a request
    are that request's children: "Propagate cancellation to any nested/child requests". Its
    notifications are written before this request's answer, so a handler that catches its
    cancellation can still stream updates ("MAY finish sending any pending notifications before
    responding", ACP `cancellation.mdx`). For a notification handler there is no request: the id is
    None and cancellation is never requested.
    """

    __slots__ = ("_make_peer", "_peer", "_request")

    def __init__(
        self,
        request: RequestContext | None,
        peer: PeerT | None = None,
        make_peer: Callable[[], PeerT] | None = None,
    ) -> None:
        """`peer`, or `make_peer` to build it on first use (most handlers never touch it)."""
        self._request = request
        self._peer = peer
        self._make_peer = make_peer

    @property
    def peer(self) -> PeerT:
        peer = self._peer
        if peer is None:
            assert self._make_peer is not None, "a context needs a peer or a way to make one"
            peer = self._peer = self._make_peer()
        return peer

    @property
    def request_id(self) -> RequestId | None:
        return None if self._request is None else self._request.request_id

    @property
    def cancel_requested(self) -> bool:
        """Whether this request was cancelled (`$/cancel_request`, `session/cancel`, shutdown)."""
        return self._request is not None and self._request.cancel_requested

    @property
    def cancel_source(self) -> CancelSource | None:
        return None if self._request is None else self._request.cancel_source

    async def wait_cancelled(self) -> None:
        """Return once cancellation of this request has been requested."""
        if self._request is None:
            raise RuntimeError("a notification handler has no request to cancel")
        await self._request.wait_cancelled()

    @property
    def message_id(self) -> str | None:
        """In a prompt's foreground work (editions answering a prompt at insertion), the id of
        the inserted user message; None elsewhere."""
        return getattr(self._request, "message_id", None)

    @property
    def raw_params(self) -> Any:
        """The params exactly as received (None for a notification context)."""
        return None if self._request is None else self._request.params
