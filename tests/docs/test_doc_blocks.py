"""Docs are code: every fenced block of README.md and docs/ runs here, as its fence says
(tests/docs/blocks.py), and the count of blocks run and illustrative is printed at the end."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from acp_codegen.cli import main as scaffold
from tests.docs import compiled, running
from tests.docs.blocks import LANGUAGES, Block, all_blocks

BLOCKS = all_blocks()
RUN = [block for block in BLOCKS if not block.illustrative]
COMPILERS = threading.Lock()
COUNTS = {"run": 0, "illustrative": sum(block.illustrative for block in BLOCKS)}


@pytest.fixture(scope="module")
def starters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The Python starter clients that doc agents are run against (by version: `v1`, `v2`), and
    the starter agents doc clients are run against (`agent-v1`, `agent-v2`)."""
    folder = tmp_path_factory.mktemp("starters")
    starters: dict[str, Path] = {}
    for version in ("v1", "v2"):
        for role, key in (("client", version), ("agent", f"agent-{version}")):
            out = folder / f"{role}_{version}.py"
            command = ["scaffold", role, "--protocol", version, "--out", str(out)]
            assert scaffold(command) == 0
            starters[key] = out
    yield starters


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
        f"{block.where}: an agent or client block must be python, ts or go"
        for block in BLOCKS
        if (block.agent or block.client) and block.language not in ("python", "ts", "go")
    ]
    problems += [
        f"{block.where}: a block is an agent or a client, not both"
        for block in BLOCKS
        if block.agent and block.client
    ]
    assert not problems, "\n".join(problems)


def run_block(block: Block, folder: Path, starters: dict[str, Path]) -> None:
    if block.language == "sh":
        running.run_sh(block, folder)
    elif block.language == "python":
        running.run_python(block, folder, starters)
    elif block.language == "json":
        running.run_json(block)
    elif block.language in ("ts", "go"):
        run = compiled.run_ts if block.language == "ts" else compiled.run_go
        with COMPILERS:  # one tsc run and one Go module, shared by all pages
            run(block, folder, starters)
    else:
        raise AssertionError(f"{block.where}: no runner for {block.language!r}")


def run_page(blocks: list[Block], folder: Path, starters: dict[str, Path]) -> dict[str, str]:
    """A page's blocks in page order, in its working folder: each block's failure, if any (a
    failed block does not stop the next ones)."""
    failures: dict[str, str] = {}
    for block in blocks:
        try:
            run_block(block, folder, starters)
        except (AssertionError, OSError, subprocess.SubprocessError) as error:
            failures[block.id] = str(error)
        except pytest.fail.Exception as error:
            failures[block.id] = str(error.msg)
    return failures


@pytest.fixture(scope="module")
def failures(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    starters: dict[str, Path],
) -> dict[str, str]:
    """Every page with a selected block run at once, each in a working folder of its own (a copy
    of the checkout); a page runs from its first block up to its last selected one, since a block
    may need what the ones before it wrote."""
    selected = {
        param.id
        for item in request.session.items
        if isinstance(item, pytest.Function) and hasattr(item, "callspec")
        for param in [item.callspec.params.get("block")]
        if isinstance(param, Block)
    }
    pages: dict[Path, list[Block]] = {}
    for block in RUN:
        pages.setdefault(block.page, []).append(block)
    for page, blocks in list(pages.items()):
        last = max((i for i, block in enumerate(blocks) if block.id in selected), default=-1)
        if last < 0:
            del pages[page]
        else:
            pages[page] = blocks[: last + 1]
    if not pages:
        return {}
    with ThreadPoolExecutor(max_workers=len(pages)) as pool:
        runs = [
            pool.submit(
                run_page,
                blocks,
                running.prepare_folder(tmp_path_factory.mktemp(page.stem)),
                starters,
            )
            for page, blocks in pages.items()
        ]
        found: dict[str, str] = {}
        for run in runs:
            found.update(run.result())
    return found


@pytest.mark.parametrize("block", RUN, ids=[block.id for block in RUN])
def test_the_doc_block_runs_as_written(block: Block, failures: dict[str, str]) -> None:
    if block.id in failures:
        pytest.fail(failures[block.id], pytrace=False)
    COUNTS["run"] += 1
