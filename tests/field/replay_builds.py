"""The replay programs of the three runtimes (layer: field tooling), each a command line that
takes a recording and prints its replay as JSON (tests/field/replay.py says what it holds):
Python as it is (`python -m tests.field.replay`); TypeScript compiled in one `tsc` run against the
built package (.build/typescript, `make ts-build`), as the starters are; Go built from its own
module (tests/field/replay/go, which requires generated/go through a replace)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.field.replay import replay as python_replay
from tests.paths import ROOT
from tests.starters.builds import TS_BUILD, TSCONFIG, checked, tool

HERE = Path(__file__).with_name("replay")
RUNTIMES = ("python", "typescript", "go")
Replayers = dict[str, tuple[str, ...]]
PYTHON = (sys.executable, "-m", "tests.field.replay")


def build_typescript(folder: Path) -> tuple[str, ...]:
    """`folder` must be two levels under the built package (as the starters' is)."""
    node = tool("node", "install Node.js 20 or newer")
    tsc = TS_BUILD / "node_modules" / ".bin" / "tsc"
    assert tsc.exists(), "the built TypeScript package is needed: run `make ts-build`"
    folder.mkdir(parents=True)
    shutil.copy(HERE / "replay.ts", folder / "replay.ts")
    (folder / "tsconfig.json").write_text(TSCONFIG)
    checked([str(tsc), "-p", str(folder / "tsconfig.json")], TS_BUILD)
    return (node, str(folder / "out" / "replay.js"))


def build_go(out: Path) -> tuple[str, ...]:
    go = tool("go", "install Go 1.24 or newer (https://go.dev/dl/)")
    checked([go, "build", "-o", str(out), "."], HERE / "go")
    return (str(out),)


def typescript_folder() -> Path:
    return TS_BUILD / "scaffold-tests" / f"field-replay-{uuid.uuid4().hex}"


def build_all(scratch: Path, ts_folder: Path) -> Replayers:
    """The three programs; TypeScript and Go built at once (tsc and go build, one core each)."""
    with ThreadPoolExecutor(2) as pool:
        typescript = pool.submit(build_typescript, ts_folder)
        go = pool.submit(build_go, scratch / "replay-go")
        return {
            "python": PYTHON,
            "typescript": typescript.result(),
            "go": go.result(),
        }


def replay(command: tuple[str, ...], recording: Path) -> dict[str, Any]:
    """One runtime's replay of `recording` (Python's in this process: the same function its
    command runs, without a new interpreter and its pydantic models built again each time)."""
    if command == PYTHON:
        return dict(json.loads(json.dumps(python_replay(recording))))
    done = subprocess.run(
        [*command, str(recording)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{' '.join(command)} {recording}:\n{done.stderr}"
    report: dict[str, Any] = json.loads(done.stdout)
    return report
