"""The client's reconnect, alone: bounded attempts with backoff, one log line each, then
`ConnectionClosed` from `reconnected()`; no retry without the option. And the server's route:
what nginx reads back from an `Acp-Connection-Id`."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys

import pytest
from acp_protocol.runtime.errors import ConnectionClosed
from acp_protocol.runtime.reconnect import Reconnect
from acp_protocol.runtime.transports.http_policy import HttpServerOptions, new_connection_id
from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, connect_remote

from tests.paths import ROOT


def test_the_delay_grows_by_the_factor_up_to_the_cap() -> None:
    policy = Reconnect(first_delay=0.1, factor=2.0, max_delay=0.5)
    assert [policy.delay(n) for n in range(1, 6)] == [0.1, 0.2, 0.4, 0.5, 0.5]
    with pytest.raises(ValueError):
        Reconnect(attempts=0)


def test_a_route_is_put_before_a_dot_in_every_connection_id() -> None:
    assert new_connection_id(HttpServerOptions(route="a1").route).startswith("a1.")
    assert "." not in new_connection_id()
    for bad in ("A", "a-1", "", "a.b"):
        with pytest.raises(ValueError):
            HttpServerOptions(route=bad)


async def test_when_every_attempt_fails_reconnected_raises_after_one_line_per_attempt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="acp_protocol.runtime.reconnect")
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.remote.serve_agent"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = f"ws://127.0.0.1:{int(server.stdout.readline())}/acp"
        policy = Reconnect(attempts=3, first_delay=0.01)
        async with connect_remote(Client(), url, reconnect=policy) as connection:
            await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
            os.kill(server.pid, signal.SIGKILL)
            await connection.connection.wait_closed()
            with pytest.raises(ConnectionClosed, match="failed 3 times"):
                await connection.reconnected()
    finally:
        server.kill()
        server.wait(timeout=30)
    lines = [r.getMessage() for r in caplog.records if r.name.endswith("reconnect")]
    assert [line.split(":", 1)[0] for line in lines] == [
        "reconnect 1/3 to ws",
        "reconnect 2/3 to ws",
        "reconnect 3/3 to ws",
        "reconnect to ws",
    ]
    assert all("failed" in line for line in lines[:3]) and "gave up" in lines[3]
