"""A deliberately broken client fails exactly the client cases that name its bug (issue 37).

Each `client_*` fixture of tests/conformance/broken is one small v1 client on the raw runtime
(client_base.py) with one bug; `client_no_bug` is the same client without one and fails nothing.
Each `client_v2_*` fixture is one small v2 client on the generated package (client_v2_base.py),
likewise. The whole client suite of the fixture's edition runs against each, Ctrl-C included
(`--sigint`; the fixtures reject a permission request: `--permission reject`), and the set of
failed case ids is compared whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.client_suite import broken_client, run_client_suite
from tests.conformance.suite import run_suite

FAILS = {
    "client_no_bug": set(),
    # JSON-RPC: "The Server MUST NOT reply to a Notification"
    "client_answers_notifications": {
        "client.notifications.never_answered.session/update",
        "client.notifications.never_answered._conformance/no_such_notification",
        "client.notifications.never_answered.$/cancel_request",
    },
    "client_never_answers_reads": {"client.serves.fs/read_text_file"},
    "client_ctrl_c_closes_stdin": {"client.cancel.sigint_sends_session_cancel"},
    "client_v2_no_bug": set(),
    # PromptResponse: "This response does not indicate ... that the Agent has finished
    # processing it. Processing and completion are reported through `state_update`"
    "client_v2_exits_on_the_answer": {
        "client.lifecycle.turn_ends_on_idle_not_on_the_answer",
        "client.lifecycle.shows_the_idle_stop_reason",
    },
    # "The Client answers a request the Agent cancels with `$/cancel_request` with this outcome."
    "client_v2_answers_withdrawn_requests": {
        "client.permission.withdrawn_request_answered_cancelled",
        "client.cancel.sigint_cancels_the_pending_permission",
    },
    # "Clients SHOULD treat a `-32002` response as a successful close."
    "client_v2_close_fails_on_not_found": {"client.close.not_found_is_a_successful_close"},
}


@pytest.mark.parametrize("fixture", sorted(FAILS))
def test_a_broken_client_fails_exactly_the_cases_of_its_bug(fixture: str, tmp_path: Path) -> None:
    protocol = "v2" if fixture.startswith("client_v2_") else "v1"
    options = ("--protocol", protocol, "--sigint", "--permission", "reject")
    run = run_client_suite(broken_client(fixture), *options, trace=tmp_path)
    assert run.traces, run.stderr
    assert run.ids("fail") == FAILS[fixture], run.stdout
    must_failed = run.ids("fail", "MUST")
    assert run.status == (1 if must_failed else 0), run.stdout + run.stderr


def test_a_client_that_does_not_start_its_agent_fails_with_one_line(tmp_path: Path) -> None:
    run = run_client_suite(
        ["/bin/true"], "--protocol", "v1", "--only", "client.initialize.*", trace=tmp_path
    )
    # Both cases fail; they are informative (their quote, InitializeRequest's description, says no
    # MUST), so the run exits 0 (docs/conformance.md, "Exit status").
    assert run.status == 0, run.stdout + run.stderr
    assert {t["outcome"] for t in run.traces.values()} == {"fail"}
    reasons = {t["reason"] for t in run.traces.values()}
    assert reasons == {"the client did not start its agent ({agent}): it exited (0)"}


def test_the_suite_names_what_the_client_answered_and_its_frames() -> None:
    run = run_client_suite(
        broken_client("client_answers_notifications"),
        "--protocol",
        "v1",
        "--only",
        "client.notifications.never_answered.session/update",
    )
    lines = run.stdout.splitlines()
    head = next(n for n, line in enumerate(lines) if line.startswith("FAIL"))
    assert lines[head].split()[:3] == [
        "FAIL",
        "MUST",
        "client.notifications.never_answered.session/update",
    ]
    assert "was answered: {'jsonrpc': '2.0', 'id': None, 'result': None}" in lines[head]
    assert "The Server MUST NOT reply to a Notification" in lines[head + 2]
    frames = "\n".join(lines[head + 3 :])
    assert '← {"jsonrpc": "2.0", "id": 1, "method": "initialize"' in frames
    assert '→ {"jsonrpc": "2.0", "method": "session/update"' in frames


def test_a_client_that_does_not_start_its_agent_is_told_by_its_last_stderr_line(
    tmp_path: Path,
) -> None:
    client = ["/bin/sh", "-c", "echo starting >&2; echo 'cannot spawn the agent' >&2; exit 3"]
    run = run_suite(
        client,
        "--protocol",
        "v1",
        "--only",
        "client.initialize.comes_first",
        trace=tmp_path,
        mode="client",
    )
    assert run.status == 0, run.stdout + run.stderr  # an informative case failed, no MUST
    (trace,) = run.traces.values()
    assert trace["reason"] == (
        "the client did not start its agent ({agent}): it exited (3);"
        " its stderr ends 'cannot spawn the agent'"
    )


READS_ITS_PROMPT = (
    # A client that reads its prompt from standard input (as the official Python SDK's example
    # client does): the no-bug client fixture, given the line it read.
    "/bin/sh",
    "-c",
    'read -r prompt; fixture="$1"; shift; exec "$0" "$fixture" --prompt "$prompt" -- "$@"',
)


def test_stdin_gives_a_client_that_reads_its_prompt_the_prompt_line(tmp_path: Path) -> None:
    python, fixture = broken_client("client_no_bug")
    command = [*READS_ITS_PROMPT, python, fixture, "{agent}"]
    options = ("--protocol", "v1", "--only", "client.prompt.*")
    told = run_suite(
        command, *options, "--stdin", "{prompt}", trace=tmp_path / "told", mode="client"
    )
    assert told.ids("fail") == set(), told.stdout + told.stderr
    assert "client.prompt.sends_the_prompt_text" in told.ids("pass"), told.stdout
    untold = run_suite(command, *options, trace=tmp_path / "untold", mode="client")
    assert untold.traces["client.prompt.sends_the_prompt_text"]["reason"] == (
        "neither the client's command line nor --stdin holds {prompt}"
    )
