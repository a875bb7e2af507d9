"""The docs' whole programs (blocks marked `agent` or `client`, tests/docs/blocks.py) as a reader
saves and builds them: the command line that starts each.

Built once per test session, in the session's base folder, as test_doc_blocks.py builds them:
every TypeScript block of the docs in the one tsc run `compiled.typescript_build` makes for that
folder (shared by every docs test of the session), each Go block a package of the one module
`compiled.go_module` makes there, each Python block a file as written.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest

from tests.docs import compiled
from tests.docs.blocks import Block

T = TypeVar("T")


def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the session's docs tests build in (test_doc_blocks.py's pages are under it)."""
    return tmp_path_factory.getbasetemp()


@functools.cache
def program(block: Block, folder: Path) -> list[str]:
    """The command that starts the block's program, built under `folder` (once per block)."""
    if block.language == "ts":
        built = compiled.typescript_build(folder)  # every ts block, one tsc run
        name = compiled.source_name(block, "ts")
        errors = built.diagnostics[""] + built.diagnostics[name]
        assert not errors, "\n".join(errors)
        return ["node", str(built.folder / "out" / name.replace(".ts", ".js"))]
    if block.language == "go":
        name = compiled.source_name(block, "go").removesuffix(".go")
        package = compiled.go_module(folder) / f"{name}_program"  # beside test_doc_blocks' own
        package.mkdir()
        (package / "main.go").write_text(block.text, encoding="utf-8")
        done = compiled.go(["go", "build", "-o", "program", "."], package)
        assert done.returncode == 0, done.stdout + done.stderr
        return [str(package / "program")]
    python = folder / "docs_programs"
    python.mkdir(exist_ok=True)
    path = python / f"{block.page.stem}_{block.line}.py"
    path.write_text(block.text, encoding="utf-8")
    return [sys.executable, str(path)]


def run_each(
    blocks: Iterable[Block], folder: Path, run: Callable[[Block, list[str]], T]
) -> dict[str, Future[T]]:
    """`run(block, command)` for each block, two at once (a suite run often waits on the
    program), its future by block id. Python programs start at once; the others are built one
    after another meanwhile (one tsc run, one Go build cache), each run as soon as it is built.
    A block that does not build fails its own future only."""
    pool = ThreadPoolExecutor(max_workers=2)
    futures: dict[str, Future[T]] = {}
    for block in sorted(blocks, key=lambda block: block.language != "python"):
        try:
            command = program(block, folder)
        except (AssertionError, OSError, subprocess.SubprocessError) as error:
            futures[block.id] = failed(f"{block.where}: not built: {error}")
        except pytest.fail.Exception as error:
            futures[block.id] = failed(f"{block.where}: not built: {error.msg}")
        else:
            futures[block.id] = pool.submit(run, block, command)
    pool.shutdown(wait=False)  # the runs go on; each test waits for its own
    return futures


def failed(reason: str) -> Future[T]:
    future: Future[T] = Future()
    future.set_exception(AssertionError(reason))
    return future
