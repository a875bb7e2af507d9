"""`acp-codegen scaffold agent|client --lang typescript`: starters that compile under `strict`
against the generated TypeScript package and run against each other over stdio."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_codegen.cli import main
from acp_codegen.pipeline import ROOT

BUILD = ROOT / ".build" / "typescript"
TSCONFIG = """{
  "extends": "../../tsconfig.json",
  "compilerOptions": {"rootDir": ".", "outDir": "out", "declaration": false},
  "include": ["."]
}
"""


def node() -> str:
    program = shutil.which("node")
    if program is None or not (BUILD / "node_modules" / ".bin" / "tsc").exists():
        pytest.fail("node and the built TypeScript package are needed: run `make ts-build`")
    return program


@pytest.fixture(scope="module", params=[False, True], ids=["stable", "unstable"])
def starters(request: pytest.FixtureRequest) -> Iterator[Path]:
    """Both starters, written by the real command line inside the built package (so that
    `import … from "acp-protocol-sdk/v1"` resolves to it), compiled with tsc."""
    node()
    folder = BUILD / "scaffold-tests" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    flags = ["--unstable"] if request.param else []
    for role in ("agent", "client"):
        out = folder / f"{role}.ts"
        assert main(["scaffold", role, "--lang", "typescript", "--out", str(out), *flags]) == 0
    (folder / "tsconfig.json").write_text(TSCONFIG)
    tsc = subprocess.run(
        [str(BUILD / "node_modules" / ".bin" / "tsc"), "-p", str(folder / "tsconfig.json")],
        capture_output=True,
        text=True,
        cwd=BUILD,
    )
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run_client(folder: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    agent = [node(), str(folder / "out" / "agent.js")]
    command = [node(), str(folder / "out" / "client.js"), "--prompt", prompt, *agent]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=30)


def test_the_starter_client_prompts_the_starter_agent_and_prints_the_stream(starters: Path) -> None:
    done = run_client(starters, "hello there")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hello there \n[end_turn]\n"


def test_the_starter_client_serves_files_under_its_working_directory(starters: Path) -> None:
    (starters / "notes.txt").write_text("first line\nsecond line\n")
    done = run_client(starters, f"read {starters / 'notes.txt'}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "first line \n[end_turn]\n"


def test_a_file_outside_the_roots_is_refused_in_one_line(starters: Path) -> None:
    outside = starters.parent / f"{starters.name}-outside.txt"
    outside.write_text("not for the agent\n")
    done = run_client(starters, f"read {outside}")
    outside.unlink()
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "starter client: RequestError -32602: File access refused: the path is outside the "
        "allowed roots"
    ]


def test_an_agent_program_that_cannot_be_started_is_reported_in_one_line(starters: Path) -> None:
    """A missing program is a closed connection with its reason, not a node stack trace."""
    missing = starters / "no-such-agent"
    command = [node(), str(starters / "out" / "client.js"), str(missing)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=starters, timeout=30)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "starter client: ConnectionClosed: ACP connection closed: could not start "
        f"{missing}: no such program (ENOENT)"
    ]


def test_the_starter_agent_implements_every_method_of_the_role_interface(starters: Path) -> None:
    """Each handler is there with the real signature: `implements acp.Agent` is checked by tsc,
    and every request name of the role appears as a method."""
    source = (starters / "agent.ts").read_text()
    for handler in ("initialize", "sessionNew", "sessionPrompt", "sessionCancel", "authenticate"):
        assert f"  async {handler}(params: acp." in source
