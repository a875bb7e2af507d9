"""`run(main)`: uvloop when installed, asyncio's loop on request (`event_loop=` or
`ACP_EVENT_LOOP`), and a clear error for a choice that cannot be met."""

from __future__ import annotations

import sys
import warnings

import pytest
from acp_protocol.runtime import run
from acp_protocol.runtime.event_loop import loop_name


async def which() -> str:
    return loop_name()


def test_uvloop_runs_main_when_it_is_installed() -> None:
    pytest.importorskip("uvloop")
    assert run(which()) == "uvloop"
    assert run(which(), event_loop="uvloop") == "uvloop"


def test_asyncio_is_the_opt_out_by_argument_or_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run(which(), event_loop="asyncio") == "asyncio"
    monkeypatch.setenv("ACP_EVENT_LOOP", "asyncio")
    assert run(which()) == "asyncio"


def test_without_uvloop_asyncio_runs_and_requiring_uvloop_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if it were not installed
    assert run(which()) == "asyncio"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError, match=r"pip install 'acp-protocol-sdk\[speed\]'"):
            run(which(), event_loop="uvloop")


def test_an_unknown_choice_is_refused_and_main_never_left_unawaited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACP_EVENT_LOOP", "tokio")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine … was never awaited" would fail the test
        with pytest.raises(ValueError, match="ACP_EVENT_LOOP='tokio': choose one of auto"):
            run(which())
