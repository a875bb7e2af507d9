"""Transports: line splitting with the frame size limit, pipes, stdio of a real child process."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import textwrap
from typing import Any

import pytest
from acp_protocol.runtime import Connection, RequestContext, open_fds, spawn_process
from acp_protocol.runtime.transport import FrameReader

from .runtime_support import connected, handlers


def chunks(*parts: bytes) -> Any:
    queue = list(parts)

    async def read() -> bytes:
        return queue.pop(0) if queue else b""

    return read


async def all_lines(reader: FrameReader) -> list[bytes]:
    lines: list[bytes] = []
    while (batch := await reader.next_lines()) is not None:
        lines.extend(batch)
    return lines


async def test_lines_split_across_chunks_are_joined() -> None:
    reader = FrameReader(chunks(b'{"a":', b"1}\n{", b'"b":2}\n', b'{"c":3}'))
    assert await all_lines(reader) == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


async def test_frame_over_the_limit_is_dropped_with_a_logged_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """ "A frame size limit … whose violation drops that frame with a logged error and keeps the
    connection alive." Oversized lines are dropped whole, in one chunk or spread over many."""
    big = b"x" * 40
    reader = FrameReader(
        chunks(b"ok1\n" + big + b"\nok2\n", big[:20], big[20:] + b"tail\nok3\n"), 32
    )
    with caplog.at_level(logging.ERROR, logger="acp_protocol.runtime"):
        assert await all_lines(reader) == [b"ok1", b"ok2", b"ok3"]
    assert caplog.text.count("frame size limit") == 2


async def test_oversized_request_does_not_stop_the_connection() -> None:
    async def echo(params: Any, ctx: RequestContext) -> Any:
        return params

    async with connected(handlers({"echo": echo}), frame_limit=1024) as (_, peer):
        peer.request(1, "echo", {"blob": "y" * 5000})
        peer.request(2, "echo", {"small": True})
        assert await peer.receive() == {"jsonrpc": "2.0", "id": 2, "result": {"small": True}}


async def test_os_pipe_pair_carries_a_round_trip() -> None:
    async def add(params: Any, ctx: RequestContext) -> Any:
        return params[0] + params[1]

    a_read, b_write = os.pipe()
    b_read, a_write = os.pipe()
    left = Connection(await open_fds(a_read, a_write))
    right = Connection(await open_fds(b_read, b_write), handlers({"add": add}))
    async with left, right:
        assert await left.request("add", [2, 40]) == 42


CHILD = textwrap.dedent("""
    import asyncio
    from acp_protocol.runtime import Connection, MethodHandlers, open_stdio

    async def upper(params, ctx):
        await ctx.notify("progress", {"step": 1})
        return params["text"].upper()

    async def main():
        connection = Connection(await open_stdio(), MethodHandlers({"upper": upper}))
        async with connection:
            await connection.wait_closed()

    asyncio.run(main())
    """)


async def test_child_process_on_stdio_answers_and_exits_on_eof() -> None:
    """A spawned process running the runtime on its stdio: the usual client → agent setup."""
    seen: list[Any] = []

    async def progress(params: Any) -> None:
        seen.append(params)

    transport = await spawn_process(sys.executable, "-c", CHILD)
    async with Connection(transport, handlers(notifications={"progress": progress})) as agent:
        assert await asyncio.wait_for(agent.request("upper", {"text": "hi"}), 10) == "HI"
    assert seen == [{"step": 1}]
    assert transport.process.returncode == 0
