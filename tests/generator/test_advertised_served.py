"""Advertised ⇔ served: an agent's `initialize` answer advertises a capability exactly when the
agent serves every method the capability requires (the edition's `Capability` rules: v1
`agentCapabilities.sessionCapabilities.{list,resume,close,delete}` and `loadSession`; v2
`capabilities.session`, the whole session baseline, and `capabilities.session.delete`).

Each agent below, in the three languages and both protocol versions, is driven over stdio as a
client would: `initialize`, then every request a capability requires (a session opened first when
the agent serves `session/new`). A method answers -32601 exactly when the agent does not serve it;
then no advertised capability may require a method answering -32601, and a capability whose
methods all answer must be advertised. The agents: the generated base class with only
`initialize` written (advertises nothing), a Python agent that writes every optional method
(advertises everything), and each starter agent, unedited."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.v1 import behaviour as v1_behaviour
from acp_protocol.v1 import methods as v1_methods
from acp_protocol.v2 import behaviour as v2_behaviour
from acp_protocol.v2 import methods as v2_methods

from acp_codegen.cli import main
from acp_codegen.pipeline import ROOT

METHOD_NOT_FOUND = -32601
BEHAVIOURS = {"v1": v1_behaviour.BEHAVIOUR, "v2": v2_behaviour.BEHAVIOUR}
VERSIONS = {"v1": 1, "v2": 2}
TS_BUILD = ROOT / ".build" / "typescript"
GO_BUILD = ROOT / ".build" / "go" / "advertised"


class Peer:
    """An agent program spoken to over its stdin and stdout, one JSON-RPC message a line."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.next_id = 0

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The answer to `method` (`result` or `error`); the agent's notifications are skipped,
        its requests refused."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            assert line, f"the agent closed its output before answering {method}"
            message = json.loads(line)
            if "method" in message and "id" in message:  # a request of the agent: refused
                refusal = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601}}
                self.process.stdin.write(json.dumps(refusal | {"message": "no"}) + "\n")
                self.process.stdin.flush()
            elif message.get("id") == self.next_id and "method" not in message:
                return dict(message)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def advertised_at(result: dict[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = result
    for key in path:
        if not isinstance(node, dict) or node.get(key) in (None, False):
            return False
        node = node[key]
    return True


def drive(
    protocol: str, command: list[str], cwd: Path
) -> tuple[set[str], dict[tuple[str, ...], bool]]:
    """(the methods the agent serves among those capabilities require, capability path →
    advertised), from `initialize` and a call of each required method."""
    behaviour = BEHAVIOURS[protocol]
    required = [m for c in behaviour.capabilities for m in c.requires]
    requests = list(dict.fromkeys(m for m in required if m != "session/cancel"))
    # A session first (when served); session/close last, it ends the session.
    requests.sort(key=lambda m: {"session/new": 0, "session/close": 2}.get(m, 1))
    peer = Peer(command, cwd)
    try:
        if protocol == "v1":
            init = {"protocolVersion": 1, "clientCapabilities": {}}
        else:
            init = {"protocolVersion": 2, "info": {"name": "test", "version": "0"}}
        answer = peer.call("initialize", init)
        assert "result" in answer, answer
        result = answer["result"]
        served, session = {"session/cancel"}, f"session-{uuid.uuid4()}"
        for method in requests:
            params: dict[str, Any] = {"sessionId": session, "cwd": str(cwd)}
            if method == "session/new":
                params = {"cwd": str(cwd), "mcpServers": []}
            elif method == "session/prompt":
                params = {"sessionId": session, "prompt": []}
            reply = peer.call(method, params)
            if reply.get("error", {}).get("code") != METHOD_NOT_FOUND:
                served.add(method)
            if method == "session/new" and "result" in reply:
                session = reply["result"]["sessionId"]
    finally:
        peer.close()
    return served, {c.path: advertised_at(result, c.path) for c in behaviour.capabilities}


def check(protocol: str, command: list[str], cwd: Path) -> dict[tuple[str, ...], bool]:
    """Advertised ⇔ served, for each capability of the edition; the advertised paths."""
    served, advertised = drive(protocol, command, cwd)
    for capability in BEHAVIOURS[protocol].capabilities:
        path = ".".join(capability.path)
        missing = [m for m in capability.requires if m not in served]
        if advertised[capability.path]:
            assert not missing, f"{path} is advertised, but {', '.join(missing)} answer -32601"
        else:
            assert missing, f"{path} is not advertised, although every method it needs is served"
    return advertised


# -- the agents --------------------------------------------------------------------------------

PYTHON_BASE = """
from typing import Any

from acp_protocol.runtime import run
from acp_protocol.{protocol} import models
from acp_protocol.{protocol}.agent import Agent, AgentContext, run_agent


class Base(Agent):
    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse.model_validate({answer})
{extra}

run(run_agent(Base()))
"""
ANSWERS = {
    "v1": '{"protocolVersion": 1}',
    "v2": '{"protocolVersion": 2, "info": {"name": "base", "version": "0"}}',
}


FULL_ANSWERS: dict[str, Any] = {
    "session/new": {"sessionId": "session-1"},
    "session/list": {"sessions": []},
    "session/prompt": {"v1": {"stopReason": "end_turn"}, "v2": "end_turn"},
}
"""What the Python agent writing every optional method answers (`{}` for the others)."""


def python_agent(folder: Path, protocol: str, every_optional_method: bool) -> list[str]:
    """The base class with `initialize` written, and every optional method when asked."""
    extra = ""
    if every_optional_method:
        required = {m for c in BEHAVIOURS[protocol].capabilities for m in c.requires}
        table = {"v1": v1_methods, "v2": v2_methods}[protocol].METHODS
        for spec in table:
            if spec.side == "agent" and spec.kind == "request" and spec.name in required:
                answer = FULL_ANSWERS.get(spec.name, {})
                if spec.name == "session/prompt":
                    answer = answer[protocol]
                extra += (
                    f"\n    async def {spec.handler_name}(self, params: Any, ctx: Any) -> Any:\n"
                    f"        return {answer!r}\n"
                )
    program = folder / f"{protocol}_{'full' if every_optional_method else 'base'}.py"
    answer = ANSWERS[protocol]
    program.write_text(PYTHON_BASE.format(protocol=protocol, answer=answer, extra=extra))
    return [sys.executable, str(program)]


def python_starter(folder: Path, protocol: str) -> list[str]:
    out = folder / f"{protocol}_starter.py"
    assert main(["scaffold", "agent", "--protocol", protocol, "--out", str(out), "--force"]) == 0
    return [sys.executable, str(out)]


TS_BASE = """
import * as acp from "acp-protocol-sdk/{protocol}";

const agent: acp.Agent = {{
  async initialize() {{
    return {answer} as acp.InitializeResponse;
  }},
}};
await acp.runAgent(agent);
"""
TSCONFIG = """{
  "extends": "../../tsconfig.json",
  "compilerOptions": {"rootDir": ".", "outDir": "out", "declaration": false},
  "include": ["."]
}
"""


@pytest.fixture(scope="module")
def typescript() -> Iterator[Path]:
    """The TypeScript agents (each protocol's base and starter), compiled: `out/<name>.js`."""
    if shutil.which("node") is None or not (TS_BUILD / "node_modules" / ".bin" / "tsc").exists():
        pytest.fail("node and the built TypeScript package are needed: run `make ts-build`")
    folder = TS_BUILD / "scaffold-tests" / f"advertised-{uuid.uuid4().hex}"
    folder.mkdir(parents=True)
    for protocol in VERSIONS:
        source = TS_BASE.format(protocol=protocol, answer=ANSWERS[protocol])
        (folder / f"{protocol}_base.ts").write_text(source)
        out = folder / f"{protocol}_starter.ts"
        argv = ["scaffold", "agent", "--lang", "typescript", "--protocol", protocol]
        assert main([*argv, "--out", str(out)]) == 0
    (folder / "tsconfig.json").write_text(TSCONFIG)
    tsc = subprocess.run(
        [str(TS_BUILD / "node_modules" / ".bin" / "tsc"), "-p", str(folder / "tsconfig.json")],
        capture_output=True,
        text=True,
        cwd=TS_BUILD,
    )
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr
    yield folder / "out"
    shutil.rmtree(folder, ignore_errors=True)


GO_MOD = f"""module advertised

go 1.24

require acp-protocol-sdk v0.0.0

replace acp-protocol-sdk => {ROOT / "generated" / "go"}
"""
GO_BASE = """package main

import (
	"context"
	"encoding/json"

	acp "acp-protocol-sdk"
	{protocol} "acp-protocol-sdk/{protocol}"
)

type base struct {{
	{protocol}.UnimplementedAgent
}}

type answer = {protocol}.InitializeResponse

func (base) Initialize(context.Context, {protocol}.InitializeRequest) (answer, error) {{
	var answer answer
	err := json.Unmarshal([]byte(`{answer}`), &answer)
	return answer, err
}}

func main() {{
	conn, _ := {protocol}.ConnectAgent(acp.Stdio(), base{{}})
	<-conn.Done()
}}
"""


@pytest.fixture(scope="module")
def go() -> Path:
    """The Go agents (each protocol's base and starter), built: `bin/<name>`."""
    if shutil.which("go") is None:
        pytest.fail("go is needed (Go 1.24 or newer)")
    shutil.rmtree(GO_BUILD, ignore_errors=True)
    GO_BUILD.mkdir(parents=True)
    (GO_BUILD / "go.mod").write_text(GO_MOD)
    for protocol in VERSIONS:
        base = GO_BUILD / f"{protocol}_base" / "main.go"
        base.parent.mkdir()
        base.write_text(GO_BASE.format(protocol=protocol, answer=ANSWERS[protocol]))
        out = GO_BUILD / f"{protocol}_starter" / "main.go"
        argv = ["scaffold", "agent", "--lang", "go", "--protocol", protocol, "--out", str(out)]
        assert main(argv) == 0
    for command in (["go", "vet", "./..."], ["go", "build", "-o", "bin/", "./..."]):
        done = subprocess.run(command, cwd=GO_BUILD, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    return GO_BUILD / "bin"


# -- the table ---------------------------------------------------------------------------------

NOTHING: dict[str, set[tuple[str, ...]]] = {"v1": set(), "v2": set()}
EVERYTHING = {p: {c.path for c in b.capabilities} for p, b in BEHAVIOURS.items()}
STARTERS = {"v1": set(), "v2": {("capabilities", "session")}}
"""What each starter serves: v1 none of the optional methods; v2 the whole session baseline (from
its session store), not session/delete."""


def advertised_paths(advertised: dict[tuple[str, ...], bool]) -> set[tuple[str, ...]]:
    return {path for path, on in advertised.items() if on}


@pytest.mark.parametrize("protocol", VERSIONS)
@pytest.mark.parametrize(
    ("agent", "expected"), [("base", NOTHING), ("full", EVERYTHING), ("starter", STARTERS)]
)
def test_a_python_agent_advertises_exactly_what_it_serves(
    protocol: str, agent: str, expected: dict[str, set[tuple[str, ...]]], tmp_path: Path
) -> None:
    make: Callable[[], list[str]] = (
        (lambda: python_starter(tmp_path, protocol))
        if agent == "starter"
        else (lambda: python_agent(tmp_path, protocol, agent == "full"))
    )
    advertised = check(protocol, make(), tmp_path)
    assert advertised_paths(advertised) == expected[protocol]


@pytest.mark.parametrize("protocol", VERSIONS)
@pytest.mark.parametrize(("agent", "expected"), [("base", NOTHING), ("starter", STARTERS)])
def test_a_typescript_agent_advertises_exactly_what_it_serves(
    typescript: Path,
    protocol: str,
    agent: str,
    expected: dict[str, set[tuple[str, ...]]],
    tmp_path: Path,
) -> None:
    command = [shutil.which("node") or "node", str(typescript / f"{protocol}_{agent}.js")]
    advertised = check(protocol, command, tmp_path)
    assert advertised_paths(advertised) == expected[protocol]


@pytest.mark.parametrize("protocol", VERSIONS)
@pytest.mark.parametrize(("agent", "expected"), [("base", NOTHING), ("starter", STARTERS)])
def test_a_go_agent_advertises_exactly_what_it_serves(
    go: Path, protocol: str, agent: str, expected: dict[str, set[tuple[str, ...]]], tmp_path: Path
) -> None:
    advertised = check(protocol, [str(go / f"{protocol}_{agent}")], tmp_path)
    assert advertised_paths(advertised) == expected[protocol]
