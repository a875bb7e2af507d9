"""A handler that blocks the event loop (`time.sleep`, long CPU work between two awaits) is named
in one warning with how long the loop was held, instead of showing up only as a timeout elsewhere
(issue 48); a handler that waits (`await asyncio.sleep`) is never reported, and
`blocking_threshold=None` turns the watch off."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import time
from typing import Any

import pytest
from acp_protocol.runtime import RequestContext, block_watch

from tests.runtime.support import connected, handlers

LOGGER = "acp_protocol.runtime.block_watch"


class Slow:
    async def session_prompt(self, params: Any, ctx: RequestContext) -> Any:
        time.sleep(0.8)  # blocks the loop: every other request waits
        return {"stopReason": "end_turn"}

    async def session_wait(self, params: Any, ctx: RequestContext) -> Any:
        await asyncio.sleep(0.8)  # waits: the loop runs on
        return {}


def watched(**options: Any) -> Any:
    slow = Slow()
    table = handlers({"session/prompt": slow.session_prompt, "session/wait": slow.session_wait})
    return connected(table, **options)


async def ask(peer: Any, method: str) -> dict[str, Any]:
    peer.send({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}})
    answer: dict[str, Any] = await peer.receive()
    await asyncio.sleep(0.3)  # the loop ticks again after the block
    return answer


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


async def test_a_handler_that_blocks_the_loop_is_named_with_the_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        async with watched() as (_, peer):
            assert (await ask(peer, "session/prompt"))["result"] == {"stopReason": "end_turn"}
    (line,) = warnings_of(caplog)
    found = re.fullmatch(
        r"the event loop was blocked for (\d+\.\d\d) s by (\S+) \(test_block_watch\.py:\d+\)", line
    )
    assert found is not None, line
    assert 0.8 - 0.5 / 4 - 0.01 <= float(found[1]) < 5  # the tick's lateness: within a tick
    assert found[2].endswith("session_prompt")


async def test_a_handler_that_waits_is_not_reported(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        async with watched() as (_, peer):
            assert (await ask(peer, "session/wait"))["result"] == {}
    assert warnings_of(caplog) == []


async def test_blocking_threshold_none_turns_the_watch_off(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        async with watched(blocking_threshold=None) as (_, peer):
            await ask(peer, "session/prompt")
    assert warnings_of(caplog) == []


async def test_a_higher_threshold_lets_a_shorter_block_pass(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        async with watched(blocking_threshold=2.0) as (_, peer):
            await ask(peer, "session/prompt")
    assert warnings_of(caplog) == []


async def test_time_the_loop_waited_for_a_cpu_is_not_blamed_on_a_handler(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a machine too busy to run the process, the loop's tick comes late with no handler to
    blame: the time its thread waited, ready, for a CPU (Linux's schedstat) is taken off. Here
    the thread is said to have waited all along, so even the sleeping handler holds it for 0 s."""
    monkeypatch.setattr(block_watch, "runqueue_wait", time.monotonic)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        async with watched() as (_, peer):
            assert (await ask(peer, "session/prompt"))["result"] == {"stopReason": "end_turn"}
    assert warnings_of(caplog) == []


def test_the_program_that_started_the_loop_is_not_a_handler() -> None:
    """A loop waiting for I/O has only the program that started it outside asyncio and this
    package (asyncio.run or uvloop.run called from a script): no function is named."""
    started: dict[str, Any] = {}
    loop_code = compile(
        "import sys\nframe = sys._getframe()",
        f"{os.path.dirname(asyncio.__file__)}/runners.py",
        "exec",
    )
    uvloop_code = compile("import sys\nframe = sys._getframe()", "/site/uvloop/__init__.py", "exec")
    for code in (loop_code, uvloop_code):
        exec(code, started)  # called from this test: the "script" that started the loop
        assert block_watch.describe(started["frame"]) is None


def test_the_handler_is_named_even_inside_a_helper_of_its_own() -> None:
    def helper() -> Any:
        return sys._getframe()

    def handler() -> Any:
        return helper()

    runtime_code = compile(
        "frame = handler()", f"{os.path.dirname(block_watch.__file__)}/dispatch.py", "exec"
    )
    scope: dict[str, Any] = {"handler": handler}
    exec(runtime_code, scope)  # the runtime calls the handler, which calls its helper
    described = block_watch.describe(scope["frame"])
    assert described is not None, "no function named"
    name, where = described.split(" (")
    assert name.endswith("handler")  # `…<locals>.handler` (3.11+: the qualified name), or `handler`
    assert where.startswith("test_block_watch.py:")
