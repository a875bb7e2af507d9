"""Without the `http` extra the package still imports (the server needs no library), and opening
a remote agent fails with one line that names the extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_without_the_http_extra_a_remote_agent_names_the_extra_in_one_line() -> None:
    script = textwrap.dedent("""
        import asyncio, sys
        for name in ("httpx", "httpx_sse", "websockets"):
            sys.modules[name] = None  # as if the extra were not installed
        from acp_protocol.v1.agent import Agent, http_app
        from acp_protocol.v1.client import connect_remote
        from acp_protocol.runtime.transports.remote import MissingExtra, open_remote

        http_app(Agent)
        for url in ("http://127.0.0.1:9/acp", "ws://127.0.0.1:9/acp"):
            try:
                asyncio.run(open_remote(url))
            except MissingExtra as error:
                print(error)
        """)
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert output.splitlines() == [
        "remote agents need the http extra (httpx is missing): "
        "pip install 'acp-protocol-sdk[http]'",
        "remote agents need the http extra (websockets is missing): "
        "pip install 'acp-protocol-sdk[http]'",
    ]
