"""Our v1 starter clients (`acp-codegen scaffold client`, Python, TypeScript, Go) pass every
applicable MUST and SHOULD case of the client suite (issue 37), Ctrl-C included (`--sigint`), and
their informative cases too (they are the starter client protocol the informative cases
describe). The suite plays the agent; each client starts it as `{agent}`. The TypeScript and Go
starters are built as tests/starters builds them (when tsc and go are at hand)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conformance.client_suite import run_client_suite
from tests.conformance.suite import Run
from tests.starters.builds import (
    TS_BUILD,
    build_go,
    build_python,
    build_typescript,
    typescript_folder,
)

SKIPPED = {
    # the starters advertise fs.readTextFile and fs.writeTextFile: client.serves.* checks them
    "client.answers.fs/read_text_file": "advertised by clientCapabilities.fs.readTextFile "
    "(client.serves.* checks it)",
    "client.answers.fs/write_text_file": "advertised by clientCapabilities.fs.writeTextFile "
    "(client.serves.* checks it)",
}


def assert_conforms(run: Run) -> None:
    assert run.traces, run.stderr
    assert run.ids("fail") == set(), run.stdout
    assert run.status == 0, run.stdout + run.stderr
    assert {case: run.traces[case]["reason"] for case in run.ids("skip")} == SKIPPED
    assert all(t["protocol"] == "v1" for t in run.traces.values())
    assert "client.cancel.sigint_sends_session_cancel" in run.ids("pass")


def test_the_python_starter_client_passes_every_case(tmp_path: Path) -> None:
    client = build_python(tmp_path / "starters")["python", "v1", "client"]
    run = run_client_suite(client.command, "--sigint", trace=tmp_path / "trace")  # auto
    assert_conforms(run)
    print(f"\nthe client suite against the Python v1 starter: {run.seconds:.1f} s")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.skipif(not (TS_BUILD / "node_modules").exists(), reason="run `make ts-build`")
def test_the_typescript_starter_client_passes_every_case(tmp_path: Path) -> None:
    folder = typescript_folder()
    try:
        client = build_typescript(folder)["typescript", "v1", "client"]
        assert_conforms(
            run_client_suite(client.command, "--protocol", "v1", "--sigint", trace=tmp_path)
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_the_go_starter_client_passes_every_case(tmp_path: Path) -> None:
    client = build_go(tmp_path / "go")["go", "v1", "client"]
    run = run_client_suite(client.command, "--protocol", "v1", "--sigint", trace=tmp_path / "t")
    assert_conforms(run)
