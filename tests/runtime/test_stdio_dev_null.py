"""A stdio peer started with `/dev/null` for stdin or stdout (a daemon, cron, `nohup`): `/dev/null`
is a character device that epoll refuses (`EPERM`), so the event loop cannot watch it. The Python
runtime puts it behind a pipe like a regular file (`transports/file_pumps.py`): the end of stdin
ends the connection and the process exits 0; what is written to `/dev/null` is gone, as it should
be. Under asyncio's loop and under uvloop (the `speed` extra), as `run()` picks them."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.interop.support import INTEROP

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}

AGENT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[2])
    from our_agent import InteropAgent
    from acp_protocol.runtime.event_loop import run
    from acp_protocol.v1.agent import run_agent
    run(run_agent(InteropAgent()), event_loop=sys.argv[1])
    print("agent done", file=sys.stderr)
    """)

LOOPS = [
    "asyncio",
    pytest.param(
        "uvloop",
        marks=pytest.mark.skipif(
            subprocess.run([sys.executable, "-c", "import uvloop"], capture_output=True).returncode
            != 0,
            reason="uvloop (the speed extra) is not installed",
        ),
    ),
]


@pytest.mark.parametrize("loop", LOOPS)
def test_an_agent_with_dev_null_for_stdin_sees_the_end_of_input_and_exits_0(loop: str) -> None:
    with open("/dev/null", "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", AGENT, loop, str(INTEROP)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=10,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == ["agent done"]


@pytest.mark.parametrize("loop", LOOPS)
def test_an_agent_with_dev_null_for_stdout_answers_into_it_and_exits_0(loop: str) -> None:
    with open("/dev/null", "wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-c", AGENT, loop, str(INTEROP)],
            input=json.dumps(INITIALIZE) + "\n",
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=10,
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["agent done"]
