"""Serving a starter agent over ACP's remote transport for the `--url` tests: `python -m
tests.conformance.serve_agent AGENT_FILE PORT [TOKEN_ENV]` imports the scaffolded file's
`StarterAgent` and serves it with the runtime's `http_app` (one agent per connection; Streamable
HTTP and WebSocket at `/acp`) under uvicorn on 127.0.0.1:PORT, with the bearer token held in
TOKEN_ENV when one is named. It prints `serving` once it listens."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from tests.paths import ROOT

FRAME_LIMIT = 64 * 1024 * 1024


def starter_class(agent_file: Path) -> type:
    spec = importlib.util.spec_from_file_location("starter_agent", agent_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    agent: type = module.StarterAgent
    return agent


def main(argv: list[str]) -> None:
    agent_file, port = Path(argv[0]), int(argv[1])
    token = os.environ[argv[2]] if len(argv) > 2 else None
    agent = starter_class(agent_file)
    roles = importlib.import_module(agent.__mro__[1].__module__)  # acp_protocol.vN.agent
    from acp_protocol.runtime.transports.http_policy import HttpServerOptions

    app = roles.http_app(agent, HttpServerOptions(token=token))
    # WebSocket messages as long as the agent's frames (uvicorn's default: 16 MiB), for the
    # suite's 40 MB frames.
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=FRAME_LIMIT
    )
    server = uvicorn.Server(config)
    print("serving", flush=True)
    server.run()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def served(agent_file: Path, token_env: str | None = None) -> Iterator[str]:
    """The starter in `agent_file` at `http://127.0.0.1:PORT/acp` until the block ends."""
    port = free_port()
    argv = [sys.executable, "-m", "tests.conformance.serve_agent", str(agent_file), str(port)]
    server = subprocess.Popen([*argv, *([token_env] if token_env else [])], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start (status {server.poll()})")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/acp"
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main(sys.argv[1:])
