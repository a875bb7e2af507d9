"""One cancellation core, three dialects: ACP `$/cancel_request`, LSP `$/cancelRequest`, MCP
`notifications/cancelled`."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from acp_protocol.runtime import (
    CONTENT_LENGTH,
    LSP,
    MCP,
    CancelSignal,
    RequestCancelled,
    RequestContext,
    RequestOptions,
)
from acp_protocol.runtime.transports.framing import ContentLengthReader
from acp_protocol.runtime.transports.transport import OversizedFrame

from tests.runtime.support import connected, eventually, handlers, settle


def blocking() -> tuple[Any, list[Any]]:
    seen: list[Any] = []

    async def block(params: Any, ctx: RequestContext) -> Any:
        await asyncio.Event().wait()

    async def note(params: Any) -> None:
        seen.append(params)

    table = handlers({"work": block, "initialize": block}, {"$/cancel_request": note})
    return table, seen


async def test_lsp_cancel_request_uses_the_id_key_and_is_answered() -> None:
    """LSP: "A request that got canceled still needs to return from the server and send a
    response back"; `params: { id: integer | string }`."""
    table, _ = blocking()
    async with connected(table, dialect=LSP) as (connection, peer):
        peer.request("q", "work")
        await settle()
        peer.notify("$/cancelRequest", {"id": "q"})
        answer = await peer.receive()
        assert answer["id"] == "q" and answer["error"]["code"] == -32800
        call = asyncio.create_task(connection.request("textDocument/hover"))
        await peer.receive()
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        assert await peer.receive() == {
            "jsonrpc": "2.0",
            "method": "$/cancelRequest",
            "params": {"id": 1},
        }


async def test_mcp_cancelled_request_is_not_answered_and_the_reason_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """MCP: receivers SHOULD "Not send a response for the cancelled request"; "Both parties
    SHOULD log cancellation reasons"."""
    table, _ = blocking()
    async with connected(table, dialect=MCP) as (connection, peer):
        peer.request(1, "work")
        await settle()
        with caplog.at_level(logging.INFO, logger="acp_protocol.runtime"):
            peer.notify("notifications/cancelled", {"requestId": 1, "reason": "user stopped"})
            await peer.expect_silence()
        assert "user stopped" in caplog.text
        assert connection.in_flight_count == 0


async def test_mcp_initialize_is_never_cancelled() -> None:
    """MCP: "The `initialize` request MUST NOT be cancelled by clients": a cancel for it is
    ignored, and our own cancelled `initialize` sends no notification."""
    table, _ = blocking()
    async with connected(table, dialect=MCP) as (connection, peer):
        peer.request(1, "initialize")
        await settle()
        peer.notify("notifications/cancelled", {"requestId": 1})
        await settle()
        assert connection.in_flight_count == 1
        call = asyncio.create_task(connection.request("initialize", {}))
        await peer.receive()
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        await peer.expect_silence()
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {}})  # the late answer is dropped
        await settle()
        assert connection.pending_count == 0


async def test_mcp_caller_stops_waiting_and_ignores_the_late_answer() -> None:
    """MCP: "The sender of the cancellation notification SHOULD ignore any response to the
    request that arrives afterward"; the graceful form fails locally, as no answer will come."""
    async with connected(dialect=MCP) as (connection, peer):
        signal = CancelSignal()
        call = asyncio.create_task(
            connection.request("tools/call", {}, RequestOptions(cancel=signal))
        )
        await peer.receive()
        signal.cancel("too slow")
        with pytest.raises(RequestCancelled):
            await call
        assert await peer.receive() == {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "too slow"},
        }
        assert connection.pending_count == 0
        peer.send({"jsonrpc": "2.0", "id": 1, "result": {}})
        await peer.expect_silence()


async def test_other_dialects_cancel_notification_is_an_ordinary_notification() -> None:
    """A connection speaks one dialect: under MCP, `$/cancel_request` reaches the handler."""
    table, seen = blocking()
    async with connected(table, dialect=MCP) as (connection, peer):
        peer.request(1, "work")
        peer.cancel(1)
        await eventually(lambda: seen)
        assert seen == [{"requestId": 1}]
        assert connection.in_flight_count == 1


async def test_lsp_never_cancels_initialize() -> None:
    """LSP 3.17: until the `InitializeResult` "the client must not send any additional requests
    or notifications": a cancelled `initialize` caller sends no `$/cancelRequest`."""
    async with connected(dialect=LSP) as (connection, peer):
        call = asyncio.create_task(connection.request("initialize", {}))
        await peer.receive()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await peer.expect_silence()


async def test_lsp_request_the_server_cancels_itself_is_answered_server_cancelled() -> None:
    """`ServerCancelled` (-32802): "The server cancelled the request"; -32800 stays for the
    client's own `$/cancelRequest`."""

    async def gives_up(params: Any, ctx: RequestContext) -> Any:
        raise RequestCancelled()

    async with connected(handlers({"slow": gives_up}), dialect=LSP) as (_, peer):
        peer.request(1, "slow", {})
        error = (await peer.receive())["error"]
    assert (error["code"], error["message"]) == (-32802, "Server cancelled")


def content_length_chunks(*parts: bytes) -> Any:
    queue = list(parts)

    async def read() -> bytes:
        return queue.pop(0) if queue else b""

    return read


async def test_content_length_frames_split_anywhere_are_read_whole() -> None:
    """The LSP base protocol: headers, a blank line, then exactly Content-Length bytes."""
    one, two = b'{"a":1}', b'{"b":"\xc3\xa9"}'
    header = b"content-length: %d\r\nContent-Type: x\r\n\r\n" % len(two)
    stream = CONTENT_LENGTH.wrap(one) + header + two
    reader = ContentLengthReader(content_length_chunks(stream[:5], stream[5:30], stream[30:]))
    got: list[Any] = []
    while (batch := await reader.next_lines()) is not None:
        got += batch
    assert got == [one, two]


async def test_an_oversized_or_headerless_message_is_dropped_and_the_stream_goes_on() -> None:
    big = b'{"jsonrpc":"2.0","id":3,"method":"x","params":"' + b"y" * 100 + b'"}'
    stream = CONTENT_LENGTH.wrap(big) + b"Bogus: 1\r\n\r\n" + CONTENT_LENGTH.wrap(b'{"ok":true}')
    reader = ContentLengthReader(content_length_chunks(stream[:40], stream[40:]), 64)
    got: list[Any] = []
    while (batch := await reader.next_lines()) is not None:
        got += batch
    assert got == [OversizedFrame(big, len(big)), b'{"ok":true}']
