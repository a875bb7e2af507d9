"""Malformed input: every bad frame gets its JSON-RPC error, and the connection survives it.

"The official Python SDK's receive loop dies on a JSON array line; ours must not."
"""

from __future__ import annotations

import logging
from typing import Any

import pydantic
import pytest
from acp_protocol.runtime import InvalidParams, RequestContext, RpcError

from tests.runtime.support import connected, handlers


async def echo(params: Any, ctx: RequestContext) -> Any:
    return params


async def crash(params: Any, ctx: RequestContext) -> Any:
    raise RuntimeError("secret internal state")


async def strict(params: Any, ctx: RequestContext) -> Any:
    class Params(pydantic.BaseModel):
        path: str

    try:
        Params.model_validate(params)
    except pydantic.ValidationError as error:
        raise InvalidParams.from_validation(error) from error
    return {}


ECHO = handlers({"echo": echo, "crash": crash, "strict": strict})


async def assert_alive(peer: Any) -> None:
    """The connection still answers a valid request after the bad frame."""
    peer.request(99, "echo", {"alive": True})
    assert await peer.receive() == {"jsonrpc": "2.0", "id": 99, "result": {"alive": True}}


async def test_unparsable_json_is_answered_parse_error_with_null_id() -> None:
    """JSON-RPC 2.0: -32700 "Invalid JSON was received"; the id could not be read, so it is null."""
    async with connected(ECHO) as (_, peer):
        peer.send_line(b'{"jsonrpc": "2.0", "id": 1, "method": ')
        answer = await peer.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32700
        await assert_alive(peer)


@pytest.mark.parametrize(
    ("line", "answer_id"),
    [
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "echo"}]', None),  # a batch: ACP has none
        (b"[]", None),
        (b'"session/prompt"', None),
        (b"42", None),
        (b"null", None),
        (b'{"jsonrpc": "2.0", "id": 5}', 5),  # no method, no result
        (b'{"jsonrpc": "2.0", "id": true, "method": "echo"}', None),  # bool id
        (b'{"jsonrpc": "2.0", "id": null, "method": "echo"}', None),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "echo"}', None),
        (b'{"jsonrpc": "2.0", "id": 6, "method": 7}', 6),
        (b'{"jsonrpc": "1.0", "id": 7, "method": "echo"}', 7),
        (b'{"id": 8, "method": "echo"}', 8),
        (b'{"jsonrpc": "2.0", "id": 9, "method": "echo", "params": "x"}', 9),
    ],
)
async def test_a_frame_that_is_not_a_message_is_answered_invalid_request(
    line: bytes, answer_id: Any
) -> None:
    """-32600 "The JSON sent is not a valid Request object"; the id is echoed when it was usable."""
    async with connected(ECHO) as (_, peer):
        peer.send_line(line)
        answer = await peer.receive()
        assert answer["id"] == answer_id
        assert answer["error"]["code"] == -32600
        assert answer["error"]["data"]["details"]
        await assert_alive(peer)


async def test_unknown_method_is_answered_method_not_found() -> None:
    async with connected(ECHO) as (_, peer):
        peer.request(1, "no/such_method", {})
        answer = await peer.receive()
        assert answer["id"] == 1 and answer["error"]["code"] == -32601
        await assert_alive(peer)


async def test_invalid_params_carry_the_validation_details_in_data() -> None:
    async with connected(ECHO) as (_, peer):
        peer.request(1, "strict", {"path": 3})
        error = (await peer.receive())["error"]
        assert error["code"] == -32602
        assert error["data"]["errors"][0]["loc"] == ["path"]
        await assert_alive(peer)


async def test_handler_crash_is_internal_error_without_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """-32603; the traceback is logged here, never sent unless asked for."""
    async with connected(ECHO) as (_, peer):
        with caplog.at_level(logging.ERROR, logger="acp_protocol.runtime"):
            peer.request(1, "crash")
            error = (await peer.receive())["error"]
        assert error["code"] == -32603
        assert "traceback" not in error["data"]
        assert "RuntimeError" in caplog.text
        await assert_alive(peer)


async def test_handler_crash_traceback_is_sent_only_when_enabled() -> None:
    async with connected(ECHO, send_tracebacks=True) as (_, peer):
        peer.request(1, "crash")
        error = (await peer.receive())["error"]
        assert "Traceback" in error["data"]["traceback"]


async def test_rpc_error_raised_by_a_handler_is_sent_as_it_is() -> None:
    async def refuse(params: Any, ctx: RequestContext) -> Any:
        raise RpcError("Authentication required", {"hint": "login"}, code=-32000)

    async with connected(handlers({"refuse": refuse})) as (_, peer):
        peer.request("a", "refuse")
        assert await peer.receive() == {
            "jsonrpc": "2.0",
            "id": "a",
            "error": {
                "code": -32000,
                "message": "Authentication required",
                "data": {"hint": "login"},
            },
        }


async def test_unserializable_result_is_internal_error() -> None:
    async def bad(params: Any, ctx: RequestContext) -> Any:
        return {"value": object()}

    async with connected(handlers({"bad": bad, "echo": echo})) as (_, peer):
        peer.request(1, "bad")
        assert (await peer.receive())["error"]["code"] == -32603
        await assert_alive(peer)


async def test_response_and_error_frames_are_never_answered() -> None:
    """A response to an unknown id, or an error report with a null id, gets no reply."""
    async with connected(ECHO) as (_, peer):
        peer.send({"jsonrpc": "2.0", "id": 12345, "result": {}})
        peer.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}})
        await peer.expect_silence()
        await assert_alive(peer)


async def test_blank_lines_and_crlf_are_tolerated() -> None:
    async with connected(ECHO) as (_, peer):
        peer.send_line(b"")
        peer.send_line(b"   ")
        peer.send_line(b'{"jsonrpc": "2.0", "id": 1, "method": "echo", "params": [1]}\r')
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 1, "result": [1]}


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "method": "session/update", "params": "x"}',
        b'{"jsonrpc": "1.0", "method": "session/update"}',
        b'{"method": "session/update", "params": {}}',
    ],
)
async def test_malformed_notification_is_logged_never_answered(
    line: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """JSON-RPC 2.0 §4.1: "The Server MUST NOT reply to a Notification"."""
    async with connected(ECHO) as (_, peer):
        with caplog.at_level(logging.WARNING, logger="acp_protocol.runtime"):
            peer.send_line(line)
            await peer.expect_silence()
        assert "invalid frame" in caplog.text
        await assert_alive(peer)
