"""How each kind of doc block is run: shell and Python blocks in the page's working folder, agent
blocks under the Python starter client, client blocks against the Python starter agent, fragments
inside their wrapper program.

A page's working folder is a copy of the checkout (its tracked and untracked files, as they are
now) with links to what `make` installed (`.venv`, `.build`, the node_modules folders), so a
block runs from the repository root as the docs say, and nothing a block writes lands in the
checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.docs.blocks import Block
from tests.paths import ROOT

WRAPPERS = ROOT / "tests" / "docs" / "wrappers"
LINKED = (
    ".venv",
    ".build",
    "tests/interop/node/node_modules",
    "tests/interop/production/node_modules",
    "bench/stdio/ts/node_modules",
)
PYTHON = ROOT / ".venv" / "bin" / "python"
NOTES = "Notes for the agent: the build is green.\n"
"""What `notes.txt` in the client's folder says (the README's agent reads it through the client)."""


def prepare_folder(folder: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for name in listed.stdout.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    for name in LINKED:
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    (folder / "notes.txt").write_text(NOTES)
    return folder


def environment() -> dict[str, str]:
    path = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}


def run(
    args: list[str], folder: Path, *, timeout: float = 300, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=folder,
        env=environment(),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def failure(block: Block, what: str, done: subprocess.CompletedProcess[str]) -> str:
    tail = (done.stdout[-1500:] + "\n" + done.stderr[-3000:]).strip()
    return f"{block.where}: {what} exited {done.returncode}:\n{tail}"


def wrapped(block: Block, extension: str) -> str:
    """The fragment inside its wrapper program, indented as the wrapper's marker line is."""
    assert block.fragment is not None
    wrapper = WRAPPERS / f"{block.fragment}.{extension}"
    if not wrapper.is_file():
        raise AssertionError(f"{block.where}: fragment={block.fragment} has no wrapper {wrapper}")
    out: list[str] = []
    for line in wrapper.read_text().splitlines():
        if line.strip() in ("# FRAGMENT", "// FRAGMENT"):
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + body if body else body for body in block.text.splitlines())
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def run_sh(block: Block, folder: Path) -> None:
    script = folder / f"block_{block.line}.sh"
    script.write_text("set -euo pipefail\n" + block.text)
    done = run(["bash", script.name], folder)
    assert done.returncode == 0, failure(block, "the shell block", done)


def run_python(block: Block, folder: Path, starters: dict[str, Path]) -> None:
    name = f"block_{block.line}.py"
    text = wrapped(block, "py") if block.fragment else block.text
    (folder / name).write_text(text)
    if block.client is not None:
        run_client_program(block, folder, starters[f"agent-{block.client}"], [str(PYTHON), name])
        return
    version = block.agent
    if version is None:
        done = run([str(PYTHON), name], folder, timeout=120)
        assert done.returncode == 0, failure(block, "the Python block", done)
        return
    run_agent_program(block, folder, starters[version], [str(PYTHON), name])


def run_agent_program(block: Block, folder: Path, client: Path, agent: list[str]) -> None:
    """The agent a block shows answers `initialize`, creates a session and answers a prompt, with
    its words streamed to the Python starter client before the turn ends."""
    done = run(
        [str(PYTHON), str(client), "--prompt", "hello from the docs", *agent], folder, timeout=60
    )
    assert done.returncode == 0, failure(block, "the starter client against the agent", done)
    lines = done.stdout.strip().splitlines()
    assert lines and lines[-1] == "[end_turn]", failure(block, "the prompt turn", done)
    assert len(lines) > 1 and lines[0].strip(), failure(block, "the streamed answer", done)


def run_client_program(block: Block, folder: Path, agent: Path, client: list[str]) -> None:
    """The client a block shows starts the Python starter agent its arguments name, prompts it
    ("hello") and prints the words the agent streams back (`You said: hello`)."""
    done = run([*client, str(PYTHON), str(agent)], folder, timeout=60)
    assert done.returncode == 0, failure(block, "the client against the starter agent", done)
    assert "You said: hello" in done.stdout, failure(block, "the agent's words", done)


def run_json(block: Block) -> None:
    try:
        json.loads(block.text)
    except json.JSONDecodeError as error:
        raise AssertionError(f"{block.where}: not JSON: {error}") from None
