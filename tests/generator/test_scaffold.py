"""`acp-codegen scaffold agent|client [--unstable] --out FILE`: runnable starters."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from acp_protocol.v1 import methods
from acp_protocol.v1.unstable import methods as unstable_methods
from mypy import api as mypy_api

from acp_codegen.cli import main
from acp_codegen.pipeline import ROOT

ROLES = ("agent", "client")


@pytest.fixture(scope="module")
def starters(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Path]:
    """Every starter, written once by the real command line."""
    directory = tmp_path_factory.mktemp("starters")
    written = {}
    for role in ROLES:
        for unstable in (False, True):
            out = directory / f"{'unstable_' if unstable else ''}{role}.py"
            flags = ["--unstable"] if unstable else []
            assert main(["scaffold", role, "--out", str(out), *flags]) == 0
            written[role, unstable] = out
    return written


def handler_methods(path: Path) -> dict[str, ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text())
    [starter] = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    return {n.name: n for n in starter.body if isinstance(n, ast.AsyncFunctionDef)}


@pytest.mark.parametrize("unstable", [False, True], ids=["stable", "unstable"])
@pytest.mark.parametrize("role", ROLES)
def test_starter_has_every_handler_of_its_role_with_the_schema_docstring(
    starters: dict[tuple[str, bool], Path], role: str, unstable: bool
) -> None:
    table = unstable_methods if unstable else methods
    expected = {spec.handler_name for spec in table.METHODS if spec.side == role}
    found = handler_methods(starters[role, unstable])
    assert set(found) - {"extension_request"} == expected
    for name in expected:
        arguments = [a.arg for a in found[name].args.args]
        assert arguments == ["self", "params", "ctx"], name
        assert ast.get_docstring(found[name]), name


def test_scaffold_refuses_to_overwrite_a_file_without_force(tmp_path: Path) -> None:
    out = tmp_path / "mine.py"
    out.write_text("# my own agent\n")
    assert main(["scaffold", "agent", "--out", str(out)]) == 2  # bad input
    assert out.read_text() == "# my own agent\n"
    assert main(["scaffold", "agent", "--out", str(out), "--force"]) == 0
    assert "class StarterAgent(Agent)" in out.read_text()


@pytest.mark.parametrize("unstable", [False, True], ids=["stable", "unstable"])
def test_scaffolded_client_and_agent_run_against_each_other(
    starters: dict[tuple[str, bool], Path], unstable: bool, tmp_path: Path
) -> None:
    """The fresh starters, unedited: the client spawns the agent, prompts it and prints the
    streamed reply; a `read PATH` prompt makes the agent read the file through the client."""
    agent, client = starters["agent", unstable], starters["client", unstable]
    notes = tmp_path / "notes.txt"
    notes.write_text("first line of the notes\nsecond line\n")
    for prompt, reply in (("hello agent", "You said: hello agent"), (f"read {notes}", "first")):
        command = [sys.executable, str(client), "--prompt", prompt, sys.executable, str(agent)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert reply in done.stdout
        assert done.stdout.rstrip().endswith("[end_turn]")


def test_starters_pass_mypy_strict(starters: dict[tuple[str, bool], Path]) -> None:
    files = [str(path) for path in starters.values()]
    cache = str(ROOT / ".mypy_cache")
    stdout, stderr, status = mypy_api.run(["--strict", "--cache-dir", cache, *files])
    assert status == 0, stdout + stderr
