"""The base of the generated typed peers, and how they check what the peer answers.

Layer: typed layer. A typed peer (`ClientPeer`: one method per method the other side handles)
sends through one `Sender`: a `Connection`, or a `RequestContext` for nested requests. A sender
returns the innermost coroutine rather than awaiting it in one of its own: a request is one
coroutine from the typed peer to the pending table, however many layers it crosses (each
pass-through frame would cost memory per pending request and time per message).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import ValidationError

from .behaviour_engine import Sender
from .errors import InvalidResponse, UnsupportedVersion, validation_details
from .method_spec import MethodSpec
from .validators import validator_for

__all__ = ["Peer", "Sender", "parse_negotiated", "parse_result", "result_parser"]


def parse_result(spec: MethodSpec, value: Any) -> Any:
    """The peer's result of request `spec` as its result type; `InvalidResponse` when it is not
    one. Typed peers pass it, bound to their method, as a request's `parse`."""
    try:
        return validator_for(spec.result_type)(value)
    except ValidationError as error:
        raise InvalidResponse(data={"method": spec.name, **validation_details(error)}) from None


def result_parser(spec: MethodSpec) -> Callable[[Any], Any]:
    """`parse_result` bound to `spec`, its validator looked up once (on the first answer, which
    builds the models of its group): what typed peers pass as a request's `parse`."""
    validate: Callable[[Any], Any] | None = None

    def parse(value: Any) -> Any:
        nonlocal validate
        if validate is None:
            validate = validator_for(spec.result_type)
        try:
            return validate(value)
        except ValidationError as error:
            details = validation_details(error)
            raise InvalidResponse(data={"method": spec.name, **details}) from None

    return parse


def parse_negotiated(spec: MethodSpec, field: str, version: int, value: Any) -> Any:
    """The peer's answer to `initialize` (`spec`) as its result type, once its `field` says the
    client's `version`: another version is `UnsupportedVersion` naming both, not a failure to
    read the other version's answer as this one's."""
    answered = value.get(field) if isinstance(value, dict) else None
    if answered is not None and answered != version:
        raise UnsupportedVersion(data={"requested": version, "answered": answered})
    return parse_result(spec, value)


class Peer:
    """Base of the generated typed peers: every method sends through one `Sender`."""

    __slots__ = ("_sender",)

    def __init__(self, sender: Sender) -> None:
        self._sender = sender

    def extension_request(self, method: str, params: Any = None) -> Coroutine[Any, Any, Any]:
        """Send an `_`-prefixed extension request (ACP extensibility: custom methods start with
        `_`); the peer's result is returned as received, unvalidated."""
        _check_extension(method)
        return self._sender.request(method, params)

    def extension_notification(self, method: str, params: Any = None) -> Coroutine[Any, Any, None]:
        """Send an `_`-prefixed extension notification."""
        _check_extension(method)
        return self._sender.notify(method, params)


def _check_extension(method: str) -> None:
    if not method.startswith("_"):
        raise ValueError(f"extension methods start with '_': {method!r} is not one")
