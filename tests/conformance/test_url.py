"""`python -m acp_protocol.conformance agent --url URL [--token-env NAME]`: the suite against an
agent already served over ACP's remote transport (issue 37). Our Python starter agents, served
by the runtime's `http_app` under uvicorn, pass every applicable MUST and SHOULD case over
Streamable HTTP and over WebSocket, with a bearer token and without; what needs a program the
suite starts is a skip saying so; the token never reaches what the suite writes; a URL that does
not answer or refuses the token is one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from acp_codegen.cli import main as acp_codegen
from tests.conformance.serve_agent import free_port, served
from tests.conformance.suite import run_suite
from tests.conformance.test_starter_agents import assert_conforms
from tests.paths import ROOT

TOKEN = "conformance-url-token-7f3a9c"
NEEDS_PROGRAM = "needs a program the suite starts (not --url)"
SLOW_SERVER_TIMEOUT = 20


def starter(folder: Path, protocol: str) -> Path:
    agent = folder / f"agent_{protocol}.py"
    assert acp_codegen(["scaffold", "agent", "--protocol", protocol, "--out", str(agent)]) == 0
    return agent


def suite_line(*options: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "acp_protocol.conformance", "agent", *options]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.parametrize(
    ("protocol", "scheme", "token"),
    [("v1", "http", True), ("v1", "ws", False), ("v2", "http", False), ("v2", "ws", True)],
)
def test_the_starter_agent_behind_a_url_passes_every_applicable_must_and_should_case(
    protocol: str, scheme: str, token: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if token:
        monkeypatch.setenv("ACP_TOKEN", TOKEN)
    token_env = "ACP_TOKEN" if token else None
    with served(starter(tmp_path, protocol), token_env) as http_url:
        url = http_url.replace("http://", f"{scheme}://", 1)
        reports = ["--junit", str(tmp_path / "r.xml"), "--html", str(tmp_path / "r.html")]
        # One server process serves every connection on one event loop: while it decodes a
        # 40 MB frame, the other cases' answers wait (a stdio case has a process of its own),
        # past deadlines of their own (`$/cancel_request`'s 3 s): the wire's families run alone.
        reports += ["--timeout", str(SLOW_SERVER_TIMEOUT), "--skip", "frames.*,fuzz.*"]
        options = ["--url", url, *reports, *(["--token-env", token_env] if token_env else [])]
        run = run_suite([], *options, trace=tmp_path / "trace")  # --protocol auto
    assert_conforms(run, protocol)
    print(f"\n{protocol} over {scheme}: {run.seconds:.1f} s")
    # A half-close (the `eof.*` cases) has no form over a URL: those cases, and only those, are
    # skips with the reason; every other case ran over the connection.
    needs_program = {i for i, t in run.traces.items() if t["reason"] == NEEDS_PROGRAM}
    half_close = {i for i in run.traces if i.startswith("eof.")}
    assert half_close and needs_program == half_close <= run.ids("skip")
    assert len(run.ids("pass")) > 80
    # Reports name the URL, never the token.
    assert url in run.stderr
    written = [tmp_path / "r.xml", tmp_path / "r.html", *(tmp_path / "trace").glob("*.json")]
    for text in [run.stdout, run.stderr, *(p.read_text(encoding="utf-8") for p in written)]:
        assert TOKEN not in text


def test_over_http_what_a_post_cannot_carry_is_a_skip_with_the_rfd_s_reason(
    tmp_path: Path,
) -> None:
    with served(starter(tmp_path, "v1")) as url:
        run = run_suite([], "--url", url, "--skip", "frames.*,fuzz.*", trace=tmp_path / "trace")
    assert run.status == 0, run.stdout + run.stderr
    reasons = {i: t["reason"] for i, t in run.traces.items() if t["outcome"] == "skip"}
    assert reasons["envelope.bare_word_frame_is_a_parse_error_with_null_id"] == (
        "Streamable HTTP carries one JSON-RPC message (an object) per POST: the case sends 'x'"
    )
    assert reasons["negotiation.repeated_initialize_answered_like_the_first"].startswith(
        "over Streamable HTTP initialize opens a connection"
    )
    assert reasons["params.invalid.session/prompt"].startswith(
        'over Streamable HTTP "POST requests for session-scoped operations MUST include both'
    )
    # An invalid request whose method is not a string reaches the agent and is answered -32600.
    assert run.traces["envelope.request_with_a_array_method_is_invalid_and_echoes_the_id"][
        "outcome"
    ] == ("pass")


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_refused_or_missing_token_is_one_line_and_status_2(
    scheme: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TOKEN", TOKEN)
    monkeypatch.setenv("WRONG_TOKEN", "not-the-token")
    with served(starter(tmp_path, "v1"), "ACP_TOKEN") as http_url:
        url = http_url.replace("http://", f"{scheme}://", 1)
        wrong = suite_line("--url", url, "--token-env", "WRONG_TOKEN")
        missing = suite_line("--url", url)
    assert wrong.returncode == 2
    assert wrong.stdout == ""
    assert wrong.stderr.splitlines() == [
        wrong.stderr.strip()
    ], "one line"  # no traceback, no log line
    assert f"{url} refused the token in $WRONG_TOKEN" in wrong.stderr
    assert "not-the-token" not in wrong.stderr
    assert missing.returncode == 2
    assert len(missing.stderr.splitlines()) == 1
    assert f"{url} asks for a token: give --token-env NAME" in missing.stderr


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_a_url_that_does_not_answer_is_one_line_and_status_2(scheme: str) -> None:
    url = f"{scheme}://127.0.0.1:{free_port()}/acp"  # nothing listens there
    done = suite_line("--url", url)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert f"{url} does not answer: " in done.stderr


def test_url_options_are_checked_before_anything_is_sent() -> None:
    both = suite_line("--url", "http://127.0.0.1:9/acp", "--", "my-agent")
    assert (both.returncode, both.stderr.strip()) == (
        2,
        "python -m acp_protocol.conformance: give --url or a command after `--`, not both",
    )
    unset = suite_line("--url", "http://127.0.0.1:9/acp", "--token-env", "CONFORMANCE_UNSET_X")
    assert (unset.returncode, unset.stderr.strip()) == (
        2,
        "python -m acp_protocol.conformance: --token-env CONFORMANCE_UNSET_X: the environment"
        " variable is not set",
    )
    scheme = suite_line("--url", "ftp://example.org/acp")
    assert scheme.returncode == 2
    assert "--url takes http(s)://… or ws(s)://…" in scheme.stderr
