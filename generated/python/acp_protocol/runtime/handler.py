# Copied by acp-codegen from templates/python/runtime/handler.py. Do not edit here:
# edit the source, then run `make generate`.

"""The interface between the dispatcher and whatever answers incoming messages.

Layer: the protocol between the dispatcher and the typed layer.

The dispatcher is method-agnostic: method names are strings, params and results are JSON values
(or objects with a `to_wire()` method). The generated typed layer implements `Handler`; tests and
small tools can use `MethodHandlers`, a table of plain async functions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from .errors import MethodNotFound
from .request_state import RequestContext

RequestFunction = Callable[[Any, RequestContext], Awaitable[Any]]
NotificationFunction = Callable[[Any], Awaitable[None]]


class Handler(Protocol):
    async def handle_request(self, method: str, params: Any, context: RequestContext) -> Any:
        """The result of request `method`; raise an `RpcError` (`MethodNotFound`…) to answer one."""
        ...

    def handle_notification(self, method: str, params: Any) -> Awaitable[None] | None:
        """Handle notification `method`: what to await until it is handled, or None when that is
        done already (an `async def` implementation fits: its coroutine is awaited).
        Notifications are delivered one at a time, in order."""
        ...


class MethodHandlers:
    """A `Handler` from two tables of async functions keyed by method name.

    An unknown request is answered `-32601`; an unknown notification is ignored ("Unknown
    notifications SHOULD be ignored", ACP `extensibility.mdx`).
    """

    def __init__(
        self,
        requests: Mapping[str, RequestFunction] | None = None,
        notifications: Mapping[str, NotificationFunction] | None = None,
    ):
        self.requests = dict(requests or {})
        self.notifications = dict(notifications or {})

    async def handle_request(self, method: str, params: Any, context: RequestContext) -> Any:
        function = self.requests.get(method)
        if function is None:
            raise MethodNotFound(data={"method": method})
        return await function(params, context)

    async def handle_notification(self, method: str, params: Any) -> None:
        function = self.notifications.get(method)
        if function is not None:
            await function(params)
