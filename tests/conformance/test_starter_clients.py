"""Our starter clients (`acp-codegen scaffold client`, Python, TypeScript, Go; v1 and v2) pass
every applicable MUST and SHOULD case of the client suite (issue 37), Ctrl-C included
(`--sigint`), and their informative cases too (they are the starter client protocol the
informative cases describe; without a terminal they reject a permission request, so
`--permission reject`). The suite plays the agent; each client starts it as `{agent}`. The
TypeScript and Go starters are the session's (the `starters` fixture of tests/conftest.py, built
once for the starter table, these tests and the field; when node and go are at hand).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conformance.client_suite import run_client_suite
from tests.conformance.suite import Run
from tests.starters.builds import TS_BUILD, Starters, build_python

ANSWERED_AT_ONCE = (
    "the client answered the session/request_permission at once (a result): no pending request "
    "to cancel"
)
NO_CLOSE = "the client does not close its sessions (no session/close)"
SKIPPED = {
    "v1": {
        # the starters advertise fs.readTextFile and fs.writeTextFile: client.serves.* checks them
        "client.answers.fs/read_text_file": "advertised by clientCapabilities.fs.readTextFile "
        "(client.serves.* checks it)",
        "client.answers.fs/write_text_file": "advertised by clientCapabilities.fs.writeTextFile "
        "(client.serves.* checks it)",
    },
    "v2": {
        # without a terminal a starter rejects at once: it holds no request to withdraw
        "client.permission.withdrawn_request_answered_cancelled": ANSWERED_AT_ONCE,
        "client.cancel.sigint_cancels_the_pending_permission": ANSWERED_AT_ONCE,
        # a starter ends its connection without closing its session
        "client.close.params_fit_the_schema": NO_CLOSE,
        "client.close.not_found_is_a_successful_close": NO_CLOSE,
    },
}
OPTIONS = ("--sigint", "--permission", "reject")


def assert_conforms(run: Run, protocol: str) -> None:
    assert run.traces, run.stderr
    assert run.ids("fail") == set(), run.stdout
    assert run.status == 0, run.stdout + run.stderr
    assert {case: run.traces[case]["reason"] for case in run.ids("skip")} == SKIPPED[protocol]
    assert all(t["protocol"] == protocol for t in run.traces.values())
    assert "client.cancel.sigint_sends_session_cancel" in run.ids("pass")
    assert "client.permission.selects_as_its_flags_say" in run.ids("pass")


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_the_python_starter_client_passes_every_case(protocol: str, tmp_path: Path) -> None:
    client = build_python(tmp_path / "starters")["python", protocol, "client"]
    run = run_client_suite(client.command, *OPTIONS, trace=tmp_path / "trace")  # auto
    assert_conforms(run, protocol)
    print(f"\nthe client suite against the Python {protocol} starter: {run.seconds:.1f} s")


def test_the_python_v2_starter_client_allows_with_approve_all(tmp_path: Path) -> None:
    client = build_python(tmp_path / "starters")["python", "v2", "client"]
    command = [*client.command, "--approve-all"]
    only = ("--only", "client.permission.*", "--only", "client.answers.session/*")
    run = run_client_suite(command, "--permission", "allow", *only, trace=tmp_path / "trace")
    assert run.ids("pass") >= {
        "client.permission.selects_as_its_flags_say",
        "client.answers.session/request_permission",
    }, run.stdout
    assert run.ids("fail") == set(), run.stdout


NEEDS_TOOLS = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed"),
    pytest.mark.skipif(not (TS_BUILD / "node_modules").exists(), reason="run `make ts-build`"),
]
"""The session's starters (tests/conftest.py) are built with node and go, TypeScript and Go at
once."""
BUILT = [pytest.param(protocol, marks=NEEDS_TOOLS) for protocol in ("v1", "v2")]


@pytest.mark.parametrize("protocol", BUILT)
def test_the_typescript_starter_clients_pass_every_case(
    protocol: str, starters: Starters, tmp_path: Path
) -> None:
    client = starters["typescript", protocol, "client"]
    options = ("--protocol", protocol, *OPTIONS)
    assert_conforms(run_client_suite(client.command, *options, trace=tmp_path), protocol)


@pytest.mark.parametrize("protocol", BUILT)
def test_the_go_starter_clients_pass_every_case(
    protocol: str, starters: Starters, tmp_path: Path
) -> None:
    client = starters["go", protocol, "client"]
    options = ("--protocol", protocol, *OPTIONS)
    assert_conforms(run_client_suite(client.command, *options, trace=tmp_path), protocol)
