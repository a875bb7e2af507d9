"""Running the Go toolchain for the Go tests, and building the Go interop programs
(tests/go/interop/agent and client, on the generated module) that the interop tests drive over
stdio. A missing toolchain fails with one line naming what to install: never a skip."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT

TESTS = ROOT / "tests" / "go"
BIN = ROOT / ".build" / "go" / "bin"
INSTALL = "install Go 1.24 or newer (https://go.dev/dl/) to build and test generated/go"


def go_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not found on PATH: {INSTALL}", pytrace=False)
    return path


def run_go(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A Go command with the machine's own toolchain (no download) and no VCS stamping."""
    environment = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false", **env}
    return subprocess.run(
        [go_tool(args[0]), *args[1:]],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def assert_ok(result: subprocess.CompletedProcess[str]) -> None:
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, f"{' '.join(result.args)} failed:\n{output[-6000:]}"


COMMUNITY_SDK = "github.com/coder/acp-go-sdk"


@functools.cache
def _built() -> Path:
    result = run_go(["go", "build", "-o", str(BIN) + os.sep, "./interop/..."], TESTS)
    if result.returncode != 0 and COMMUNITY_SDK in result.stderr:
        reason = result.stderr.strip().splitlines()[-1]
        pytest.fail(
            f"{COMMUNITY_SDK} (pinned in tests/go/go.mod) is not available ({reason}):"
            f" run `go mod download` in {TESTS} with access to the Go module proxy",
            pytrace=False,
        )
    assert_ok(result)
    return BIN


def go_program(name: str) -> str:
    """One of the Go interop programs (tests/go/interop/<name>), built once per test run."""
    return str(_built() / name)
