"""Docs are code: every fenced block of README.md and docs/ runs here, as its fence says
(tests/docs/blocks.py), and the count of blocks run and illustrative is printed at the end."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs import compiled, running
from tests.docs.blocks import LANGUAGES, Block, all_blocks
from tests.paths import ROOT

BLOCKS = all_blocks()
RUN = [block for block in BLOCKS if not block.illustrative]
COUNTS = {"run": 0, "illustrative": sum(block.illustrative for block in BLOCKS)}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """One working folder per page, shared by its blocks in page order."""
    return {
        page: running.prepare_folder(tmp_path_factory.mktemp(page.stem))
        for page in {block.page for block in BLOCKS}
    }


@pytest.fixture(scope="module")
def starters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The Python starter clients (v1 and v2) that doc agents are run against."""
    folder = tmp_path_factory.mktemp("starters")
    clients: dict[str, Path] = {}
    for version in ("v1", "v2"):
        out = folder / f"client_{version}.py"
        command = [str(ROOT / ".venv" / "bin" / "acp-codegen"), "scaffold", "client"]
        subprocess.run([*command, "--protocol", version, "--out", str(out)], check=True)
        clients[version] = out
    yield clients


def test_every_fence_says_its_language_and_how_it_is_run() -> None:
    problems = [
        f"{block.where}: fence language {block.language or '(none)'!r}, expected one of "
        f"{', '.join(sorted(LANGUAGES))}"
        for block in BLOCKS
        if block.language not in LANGUAGES
    ]
    problems += [
        f"{block.where}: `text` blocks are never run: mark it illustrative"
        for block in BLOCKS
        if block.language == "text" and not block.illustrative
    ]
    problems += [
        f"{block.where}: an agent block must be python, ts or go"
        for block in BLOCKS
        if block.agent is not None and block.language not in ("python", "ts", "go")
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("block", RUN, ids=[block.id for block in RUN])
def test_the_doc_block_runs_as_written(
    block: Block, folders: dict[Path, Path], starters: dict[str, Path]
) -> None:
    folder = folders[block.page]
    if block.language == "sh":
        running.run_sh(block, folder)
    elif block.language == "python":
        running.run_python(block, folder, starters)
    elif block.language == "json":
        running.run_json(block)
    elif block.language == "ts":
        compiled.run_ts(block, folder, starters)
    elif block.language == "go":
        compiled.run_go(block, folder, starters)
    else:
        pytest.fail(f"{block.where}: no runner for {block.language!r}")
    COUNTS["run"] += 1
