# Copied by acp-codegen from templates/python/runtime/cancellation.py. Do not edit here:
# edit the source, then run `make generate`.

"""The three cancellation dialects, and the signal a caller uses to cancel a request gracefully.

Layer: dispatcher.

One cancellation core (in `connection.py`) and a small policy object per dialect:

| dialect | notification              | id key      | receiver answers the cancelled request? |
| ------- | ------------------------- | ----------- | --------------------------------------- |
| ACP     | `$/cancel_request`        | `requestId` | yes: a (partial) result or `-32800`     |
| LSP     | `$/cancelRequest`         | `id`        | yes: a (partial) result or `-32800`     |
| MCP     | `notifications/cancelled` | `requestId` | no ("Not send a response")              |
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .frames import RequestId, as_request_id


@dataclass(frozen=True, slots=True)
class CancelDialect:
    """How one protocol family cancels a request."""

    name: str
    method: str
    """The cancel notification's method."""
    id_key: str
    """The params member naming the cancelled request."""
    answers_cancelled: bool
    """Whether the receiver still answers a request it cancelled at the peer's demand."""
    reason_key: str | None = None
    """The params member carrying a human-readable reason, if the dialect has one."""
    uncancellable: frozenset[str] = frozenset()
    """Methods that must never be cancelled."""
    self_cancel: tuple[int, str] | None = None
    """The error (code, message) of a request the receiver cancels on its own (its timeout,
    shutdown), when the dialect tells it from the peer's cancel; None: `-32800` like any."""

    def notification_params(self, request_id: RequestId, reason: str | None) -> dict[str, Any]:
        params: dict[str, Any] = {self.id_key: request_id}
        if reason is not None and self.reason_key is not None:
            params[self.reason_key] = reason
        return params

    def cancelled_id(self, params: Any) -> RequestId | None:
        """The id a received cancel notification names; None when it is malformed."""
        if type(params) is not dict:
            return None
        return as_request_id(params.get(self.id_key))

    def reason(self, params: Any) -> str | None:
        if self.reason_key is None or type(params) is not dict:
            return None
        reason = params.get(self.reason_key)
        return reason if isinstance(reason, str) else None


ACP = CancelDialect(
    name="acp", method="$/cancel_request", id_key="requestId", answers_cancelled=True
)
"""ACP v1: "The receiver MUST send one of these responses for the original request: A valid
response with appropriate data (such as partial results or cancellation marker) / An error response
with code `-32800`" (`docs/protocol/v1/cancellation.mdx`)."""

LSP = CancelDialect(
    name="lsp",
    method="$/cancelRequest",
    id_key="id",
    answers_cancelled=True,
    uncancellable=frozenset({"initialize"}),
    self_cancel=(-32802, "Server cancelled"),
)
"""LSP 3.17: "A request that got canceled still needs to return from the server and send a response
back. It can not be left open / hanging."; before the `InitializeResult` "the client must not send
any additional requests or notifications to the server", so `initialize` is never cancelled; and
`ServerCancelled` (-32802) "The server cancelled the request. This error code should only be used
for requests that explicitly support being server cancellable." """

MCP = CancelDialect(
    name="mcp",
    method="notifications/cancelled",
    id_key="requestId",
    answers_cancelled=False,
    reason_key="reason",
    uncancellable=frozenset({"initialize"}),
)
"""MCP 2025-11-25: receivers SHOULD "Not send a response for the cancelled request"; "The sender of
the cancellation notification SHOULD ignore any response to the request that arrives afterward";
"The `initialize` request MUST NOT be cancelled by clients"; "Both parties SHOULD log cancellation
reasons"."""

DIALECTS = {dialect.name: dialect for dialect in (ACP, LSP, MCP)}


class CancelSignal:
    """Asks for one or more outgoing requests to be cancelled gracefully.

    Pass it as `request(..., RequestOptions(cancel=signal))` (a typed peer's `cancel=signal`).
    When `cancel()` is called the runtime sends the dialect's cancel notification (once per
    request) and keeps waiting for the peer's answer: its (partial) result, or `RequestCancelled`
    carrying its `-32800`. A request whose signal fired
    before it was written is not sent at all and raises `RequestCancelled` at once. In a dialect
    whose receiver does not answer (MCP) the caller gets `RequestCancelled` at once.
    """

    __slots__ = ("_callbacks", "_cancelled", "_reason")

    def __init__(self) -> None:
        self._cancelled = False
        self._reason: str | None = None
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def reason(self) -> str | None:
        return self._reason

    def cancel(self, reason: str | None = None) -> None:
        """Cancel every request using this signal; calling it again does nothing."""
        if self._cancelled:
            return
        self._cancelled = True
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def unsubscribe(self, callback: Callable[[], None]) -> None:
        with contextlib.suppress(ValueError):
            self._callbacks.remove(callback)
