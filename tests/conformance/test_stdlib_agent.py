"""An agent written with the standard library alone, from the schema texts and JSON-RPC 2.0
(tests/conformance/stdlib_agent: no acp_protocol, no pydantic), passes every MUST and SHOULD
case of the default suite, v1 and v2 (issue 46: the suite's witness that a correct agent not
built on our runtime conforms). It advertises every optional method its edition has, so the
capability cases that are skips for the starters run here, and pass."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.suite import run_suite
from tests.conformance.test_starter_agents import assert_conforms
from tests.paths import ROOT

AGENT = ROOT / "tests" / "conformance" / "stdlib_agent"


def stdlib_agent(protocol: int) -> list[str]:
    return [sys.executable, "-m", "tests.conformance.stdlib_agent", "--protocol", str(protocol)]


OPTIONAL = {
    "v1": ["session/load", "session/list", "session/resume", "session/close", "session/delete"],
    "v2": ["session/list", "session/delete"],
}
"""The optional methods of each edition the suite has capability cases for (all advertised)."""


@pytest.mark.parametrize(("protocol", "newest"), [("v1", 1), ("v2", 2), ("v1", 2)])
def test_the_stdlib_agent_passes_every_must_and_should_case(
    protocol: str, newest: int, tmp_path: Path
) -> None:
    # ("v1", 2): the agent that serves both editions, asked for v1, speaks v1
    options = ["--protocol", protocol] if newest != int(protocol[1]) else []  # else auto
    run = run_suite(stdlib_agent(newest), *options, trace=tmp_path)
    assert_conforms(run, protocol)
    print(f"\nthe default suite against the stdlib agent ({protocol}): {run.seconds:.1f} s")
    # Every optional method is advertised and served: its capability cases run, and pass.
    for method in OPTIONAL[protocol]:
        for case in ("advertised_is_served", "served_is_advertised"):
            assert run.traces[f"capabilities.{case}.{method}"]["outcome"] == "pass", method
    # Every request it serves refuses params its schema refuses, naming where.
    invalid = {i for i in run.traces if i.startswith("params.invalid.")}
    no_required = {"params.invalid.logout", "params.invalid.auth/logout"}  # nothing to refuse
    assert invalid - no_required <= run.ids("pass")
    assert run.traces["params.invalid_names_where"]["outcome"] == "pass"
    family = "prompt." if protocol == "v1" else "lifecycle."
    turn = {i for i in run.traces if i.startswith(family)}
    assert turn and turn <= run.ids("pass")  # the cancel and permission cases among them


def turn(client: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """What the v1 agent writes for `initialize` (these client capabilities), `session/new` and
    one prompt, its stdin then closed (it answers what it read, then exits)."""
    agent = subprocess.Popen(
        stdlib_agent(1), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert agent.stdin is not None and agent.stdout is not None

    def ask(n: int, method: str, params: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
        agent.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        agent.stdin.flush()  # type: ignore[union-attr]

    ask(1, "initialize", {"protocolVersion": 1, "clientCapabilities": client})
    ask(2, "session/new", {"cwd": "/tmp", "mcpServers": []})
    sent = [json.loads(agent.stdout.readline()) for _ in range(2)]
    session_id = sent[1]["result"]["sessionId"]
    ask(3, "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})
    agent.stdin.close()
    sent += [json.loads(line) for line in agent.stdout]
    assert agent.wait(10) == 0
    return sent


@pytest.mark.parametrize("advertised", [True, False])
def test_a_plan_update_goes_only_to_a_client_that_advertised_plan(advertised: bool) -> None:
    # v1's PlanUpdate: "Agents MUST NOT send this update unless the Client advertised `plan`"
    sent = turn({"plan": {}} if advertised else {}, "two words")
    kinds = [m["params"]["update"]["sessionUpdate"] for m in sent if m.get("method")]
    assert kinds == ["plan_update"] * advertised + ["agent_message_chunk"] * 2
    assert sent[-1] == {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}


def test_the_stdlib_agent_imports_nothing_but_the_standard_library() -> None:
    for path in sorted(AGENT.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (path.name, name)
