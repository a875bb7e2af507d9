"""Our clients against production ACP agents nobody here wrote, over stdio:
`@zed-industries/codex-acp` 0.16.0 and `@zed-industries/claude-agent-acp` 0.23.1
(tests/interop/production, `npm ci` from a lock).

Offline they answer `initialize` and then ask for authentication (codex) or fail `session/new`
(claude). Each runs with a home folder of its own, no API key of this machine, and every proxy
variable pointing at a closed loopback port, so whatever it tries to reach stays on this machine.
No prompt is ever sent. Every test checks that nothing of the agent's process group survives.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp_protocol.runtime import RpcError
from acp_protocol.v1 import PROTOCOL_VERSION, models
from acp_protocol.v1.client import Client, spawn_agent

from tests.field.agents import Offline, wait_for_no_survivors
from tests.paths import ROOT

MODULES = ROOT / "tests" / "interop" / "production" / "node_modules"
CODEX = str(MODULES / ".bin" / "codex-acp")
CLAUDE = str(MODULES / "@zed-industries" / "claude-agent-acp" / "dist" / "index.js")
"""By its path: the lock also holds @agentclientprotocol/claude-agent-acp (tests/field), whose
program has the same name."""
CLIENT = str(ROOT / "examples" / "client.py")


@pytest.fixture
def agent_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The agents' environment (tests/field/agents.py `Offline`), marked so that any process they
    leave behind can be found."""
    if not Path(CODEX).exists() or not Path(CLAUDE).exists():
        pytest.fail("the production agents are not installed: run `make test` (npm ci)")
    offline = Offline(tmp_path / "home")
    yield offline.env
    assert wait_for_no_survivors(offline.marker) == [], "an agent process outlived its client"


def init_request() -> models.InitializeRequest:
    return models.InitializeRequest(protocol_version=PROTOCOL_VERSION)


def new_session(tmp_path: Path) -> models.NewSessionRequest:
    return models.NewSessionRequest(cwd=str(tmp_path), mcp_servers=[])


async def test_codex_initialize_parses_and_its_auth_error_is_one_line(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    """Its `env_var` auth methods (a variant the v1 schema does not know) are kept whole."""
    async with spawn_agent(Client(), CODEX, env=agent_env) as connection:
        init = await connection.agent.initialize(init_request())
        with pytest.raises(RpcError) as caught:
            await connection.agent.session_new(new_session(tmp_path))
    by_id = {getattr(m, "id", None): m for m in init.auth_methods}
    assert isinstance(by_id["chatgpt"], models.AuthMethodAgent)
    env_var = by_id["codex-api-key"]
    assert isinstance(env_var, models.UnknownAuthMethod)
    assert env_var.to_wire()["vars"] == [{"name": "CODEX_API_KEY"}]
    assert (caught.value.code, str(caught.value)) == (-32000, "Authentication required (-32000)")


async def test_codex_authenticates_with_its_env_var_method_then_opens_a_session(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**agent_env, "CODEX_API_KEY": "a-key-for-the-test"}
    started = time.monotonic()
    async with spawn_agent(Client(), CODEX, env=env) as connection:
        await connection.agent.initialize(init_request())
        await connection.agent.authenticate(models.AuthenticateRequest(method_id="codex-api-key"))
        session = await connection.agent.session_new(new_session(tmp_path))
        assert session.session_id
    # codex-acp ignores EOF on stdin: its process group is ended within `exit_timeout` + grace.
    assert time.monotonic() - started < 15


def run_example_client(
    agent: str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, CLIENT, "--prompt", "hello", agent]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def own_lines(stderr: str) -> list[str]:
    """What our client printed (the agent's own stderr passes through)."""
    return [line for line in stderr.splitlines() if line.startswith("client:")]


def test_the_example_client_lists_codexs_auth_methods_in_one_line(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    done = run_example_client(CODEX, agent_env, tmp_path)
    assert done.returncode == 1
    assert own_lines(done.stderr) == [
        "client: the agent requires authentication: choose --auth ID from: "
        "chatgpt (Use your ChatGPT login with Codex CLI (requires a paid ChatGPT subscription)); "
        "codex-api-key (Requires setting the `CODEX_API_KEY` environment variable.); "
        "openai-api-key (Requires setting the `OPENAI_API_KEY` environment variable.)"
    ]
    assert "Traceback" not in done.stderr


async def test_claude_agent_initialize_parses_and_its_session_error_shows_the_details(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    async with spawn_agent(Client(), CLAUDE, env=agent_env) as connection:
        init = await connection.agent.initialize(init_request())
        with pytest.raises(RpcError) as caught:
            await connection.agent.session_new(new_session(tmp_path))
    assert (
        init.agent_info is not None and init.agent_info.name == "@zed-industries/claude-agent-acp"
    )
    assert init.agent_capabilities.session_capabilities is not None
    assert "Query closed before response received" in str(caught.value)


def test_the_example_client_reports_claude_agents_failure_in_one_line(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    done = run_example_client(CLAUDE, agent_env, tmp_path)
    assert done.returncode == 1
    assert own_lines(done.stderr) == [
        "client: RpcError: Internal error (-32603): Query closed before response received"
    ]
    assert "Traceback" not in done.stderr
