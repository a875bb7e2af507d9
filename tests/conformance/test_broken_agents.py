"""A deliberately broken agent fails exactly the cases that name its bug (issue 37).

Each fixture of tests/conformance/broken is one small agent with one bug: v1 agents on the raw
runtime (base.py), v2 agents on the typed layer with the bug in what they write (base_v2.py,
`v2_*`); `no_bug` and `v2_no_bug` are the same agents without one and fail nothing. The whole
default suite of the fixture's edition runs against each, and the set of failed case ids is
compared whole.

The fixtures are started by a fork server (tests/conformance/forkserver.py: the runtime and the
models imported once, not at each of the ~100 starts of a run), and the suite runs of the tests
selected go `POOL` at a time (with the starts cheap, a run mostly waits: turns, quiet periods).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conformance.forkserver import forked_agent
from tests.conformance.suite import Run, run_suite

POOL = 2

NOTIFICATIONS_ANSWERED = {
    # notifications of the edition and an unknown one (JSON-RPC: "The Server MUST NOT reply to
    # a Notification")
    "notifications.never_answered.session/cancel",
    "notifications.never_answered._conformance/no_such_notification",
    "cancel_request.unknown_id_ignored",
    # the rule book's frames that are notifications (well formed or not)
    "envelope.notification_passes_to_the_handler_and_is_never_answered",
    "envelope.notification_with_array_params_passes_to_the_handler",
    "envelope.notification_without_params_passes_to_the_handler",
    "envelope.unknown_notification_passes_to_the_handler_and_is_never_answered",
    "envelope.dollar_notification_passes_to_the_handler",
    "envelope.another_dialects_cancel_is_an_ordinary_notification",
    "envelope.cancel_of_an_unknown_id_is_ignored",
    "envelope.notification_with_jsonrpc_the_number_2_0_is_never_answered_nor_handled",
    "envelope.notification_with_jsonrpc_1_0_is_never_answered_nor_handled",
    "envelope.notification_with_jsonrpc_null_is_never_answered_nor_handled",
    "envelope.notification_with_jsonrpc_padded_is_never_answered_nor_handled",
    "envelope.notification_with_jsonrpc_2_is_never_answered_nor_handled",
    "envelope.notification_without_jsonrpc_is_never_answered_nor_handled",
    "envelope.notification_with_string_params_is_never_answered_nor_handled",
    "envelope.notification_with_number_params_is_never_answered_nor_handled",
    "envelope.notification_with_boolean_params_is_never_answered_nor_handled",
    "envelope.a_non_string_method_without_id_is_invalid_with_null_id",
    # the same, a cancel naming a request already answered, and the fuzz's notifications
    "cancel_request.after_its_answer_ignored",
    "fuzz.must",
    "fuzz.informative",  # malformed notifications: not Notifications JSON-RPC exempts (informative)
}
BIG_FRAMES = {
    # a request of 10 and 40 MB, and a line that is not JSON, each answered, the next request
    # too (informative: "the Server MUST reply", but no text sets a frame size)
    "frames.request_10mb_answered",
    "frames.not_json_10mb_answered",
    "frames.request_40mb_answered",
    "frames.not_json_40mb_answered",
}

FAILS = {
    "no_bug": set(),
    "answers_notifications": NOTIFICATIONS_ANSWERED,
    "advertises_unserved": {"capabilities.advertised_is_served.session/list"},
    "update_after_answer": {"prompt.updates_before_the_answer"},
    # not a bug: "every session/update of the turn" comes before the answer; a title and the
    # context window's use are the session's ("Agents send this notification to update session
    # information like title"), sent when the agent has them
    "title_after_answer": set(),
    # session/cancel: "This stop reason MUST be returned"; $/cancel_request may be ignored ("MAY
    # cancel"): its request is answered when the turn ends, which passes
    "ignores_cancel": {"prompt.cancel_answers_cancelled"},
    # not bugs: a turn answered at once cannot be cancelled (the cancel cases skip, saying so);
    # a `$/cancel_request` ignored ("MAY cancel") still has its prompt answered: no case fails
    # (how soon is no text's, and no case judges it)
    "fast_answers": set(),
    "ignores_cancel_request": set(),
    "drops_answers_at_eof": {"eof.pending_prompt_answered", "eof.every_request_read_is_answered"},
    "dies_on_big_frame": BIG_FRAMES,
    # requests read before EOF other than the prompt are never answered
    "drops_requests_at_eof": {"eof.every_request_read_is_answered"},
    # "Notification to cancel an ongoing request": a request sent after it was not ongoing
    "cancels_early": {"cancel_request.before_its_request_not_cancelled"},
    # "The Server MUST NOT reply to a Notification"
    "answers_late_cancel": {"cancel_request.after_its_answer_ignored"},
    # the -32602 names no field (informative: JSON-RPC leaves `data` to the server)
    "invalid_params_without_where": {"params.invalid_names_where"},
    # not a bug: `_` methods answered with a result (ACP: agents "should" answer -32601, lower
    # case): only the case that reads that "should" fails, informative; every probe passes
    "answers_extension_methods": {"methods.unknown_method_not_found"},
    # the features agent (loadSession advertised, history replayed) without a bug fails nothing
    "features_no_bug": set(),
    # "The agent should: [...] Stream the entire conversation history back" (informative)
    "load_without_replay": {"sessions.load_replays_history"},
    # a member no schema names ends the process (informative: no text closes the params)
    "exits_on_unknown_field": {"unknown_fields.request_with_unknown_member_is_answered"},
    # "The ID of the session this update pertains to": a session never created (informative)
    "updates_unknown_session": {"output.updates_only_for_its_sessions"},
    # "the Server MUST reply with a Response": a second one is the suite's reading (informative)
    "answers_prompt_twice": {"output.one_answer_per_request"},
    # "both members MUST NOT be included"
    "result_and_error": {"output.never_result_and_error"},
    # with an id, session/update is a request the schema does not have: not a valid ACP message
    "update_with_id": {"output.notifications_sent_without_an_id"},
    # the chunk's content block without its required `type`: not a valid ACP message
    "chunk_without_type": {"output.messages_fit_the_schema"},
    # "Agents MUST NOT send this update unless the Client advertised `plan`"
    "plan_without_capability": {"output.unadvertised.plan_update"},
    # "The agent MUST NOT write anything to its stdout that is not a valid ACP message"
    "logs_to_stdout": {"output.stdout_lines_are_json_rpc_messages"},
}
V2_FAILS = {
    "v2_no_bug": set(),
    # "the Agent MUST report `running` when foreground work starts [...] and `idle` when it ends"
    "v2_no_idle_after_work": {"lifecycle.turn_reports_running_then_idle"},
    # the same sentence: an update of the work after its idle
    "v2_update_after_idle": {"lifecycle.updates_before_idle"},
    # "After the close response, the Agent sends no notifications or requests for the session"
    "v2_update_after_close": {"lifecycle.close_sends_nothing_after_its_answer"},
    # "The Agent SHOULD report `requires_action` when the foreground workflow as a whole cannot
    # progress without user action"
    "v2_no_requires_action": {"lifecycle.permission_reports_requires_action"},
    # "A retry of a recorded insertion returns the original `messageId` without inserting another
    # message"
    "v2_ignores_retry_key": {"lifecycle.retry_answers_the_original_message_id"},
    # "The Agent MUST send this exactly once on a session for each `session/resume` request with
    # a `replayFrom` cursor [...] even for an empty replay"
    "v2_no_replay_complete": {"sessions.resume_replay_complete_once_before_answer"},
}


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Run]]]:
    """The whole default suite of its edition against each fixture a selected test reads, `POOL`
    runs at once."""
    wanted = []
    for item in request.session.items:
        if not isinstance(item, pytest.Function) or item.module is not sys.modules[__name__]:
            continue
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "fixture" in callspec.params:
            wanted.append(callspec.params["fixture"])
    with ThreadPoolExecutor(max_workers=POOL) as pool:
        yield {
            fixture: pool.submit(
                run_suite,
                forked_agent(fixture),
                "--protocol",
                "v2" if fixture.startswith("v2_") else "v1",
                trace=tmp_path_factory.mktemp(fixture),
            )
            for fixture in wanted
        }


@pytest.mark.parametrize("fixture", sorted(FAILS))
def test_a_broken_agent_fails_exactly_the_cases_of_its_bug(
    fixture: str, runs: dict[str, Future[Run]]
) -> None:
    run = runs[fixture].result()
    assert run.traces, run.stderr
    assert run.ids("fail") == FAILS[fixture], run.stdout
    must_failed = run.ids("fail", "MUST")
    assert run.status == (1 if must_failed else 0), run.stdout + run.stderr


@pytest.mark.parametrize("fixture", sorted(V2_FAILS))
def test_a_broken_v2_agent_fails_exactly_the_cases_of_its_bug(
    fixture: str, runs: dict[str, Future[Run]]
) -> None:
    run = runs[fixture].result()
    assert run.traces, run.stderr
    assert run.ids("fail") == V2_FAILS[fixture], run.stdout
    must_failed = run.ids("fail", "MUST")
    assert run.status == (1 if must_failed else 0), run.stdout + run.stderr


def test_a_case_that_cannot_judge_what_another_case_failed_is_a_skip_naming_it(
    tmp_path: Path,
) -> None:
    run = run_suite(
        forked_agent("v2_no_requires_action"),
        "--protocol",
        "v2",
        "--only",
        "lifecycle.*",
        trace=tmp_path,
    )
    resumes = run.traces["lifecycle.cancelled_permission_outcome_resumes_or_ends"]
    assert resumes["outcome"] == "skip"
    assert "lifecycle.permission_reports_requires_action" in resumes["reason"]


def test_the_failure_says_what_was_wrong_and_shows_the_frames(tmp_path: Path) -> None:
    run = run_suite(
        forked_agent("advertises_unserved"), "--protocol", "v1", "--only", "capabilities.*"
    )
    lines = run.stdout.splitlines()
    head = next(n for n, line in enumerate(lines) if line.startswith("FAIL"))
    # informative: the capability's description says no MUST ("Whether the agent supports")
    assert lines[head].split()[:3] == [
        "FAIL",
        "informative",
        "capabilities.advertised_is_served.session/list",
    ]
    assert "but session/list answered error -32601" in lines[head]
    assert lines[head + 2].strip().startswith('quote: "Whether the agent supports `session/list`.')
    assert "schema.json#/$defs/SessionCapabilities/properties/list" in lines[head + 2]
    frames = lines[head + 4 : head + 8]
    assert '→ {"jsonrpc": "2.0", "id": 1, "method": "initialize"' in frames[0]
    assert '"agentCapabilities": {"sessionCapabilitie' in frames[1] and "←" in frames[1]
    assert "session/list" in frames[2] and "→" in frames[2]
    assert "-32601" in frames[3] and "←" in frames[3]
