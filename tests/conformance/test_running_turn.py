"""The cases that act on a running turn (issue 46, races): they send the busy prompt, act once
the turn is seen running, skip with the reason when it ended first, and blame a stop reason
other than `cancelled` only when the agent had read the cancel first (running.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conformance.suite import broken_agent, run_suite

CANCEL = "prompt.cancel_answers_cancelled"


def sent_prompts(trace: dict[str, Any]) -> list[str]:
    """The text of every session/prompt the suite sent in a case."""
    texts = []
    for frame in trace["frames"]:
        message = frame.get("json")
        sent = frame["dir"] == "sent" and type(message) is dict
        if sent and message.get("method") == "session/prompt":
            texts.append(message["params"]["prompt"][0]["text"])
    return texts


def test_a_turn_answered_at_once_makes_the_cancel_case_a_skip_saying_so(tmp_path: Path) -> None:
    run = run_suite(
        broken_agent("fast_answers"), "--protocol", "v1", "--only", CANCEL, trace=tmp_path
    )
    trace = run.traces[CANCEL]
    assert trace["outcome"] == "skip", run.stdout
    assert "the turn ended" in trace["reason"]
    assert run.status == 0, run.stdout + run.stderr


def test_a_turn_not_cancelled_after_the_cancel_was_read_fails_saying_it_was_read(
    tmp_path: Path,
) -> None:
    run = run_suite(
        broken_agent("ignores_cancel"), "--protocol", "v1", "--only", CANCEL, trace=tmp_path
    )
    trace = run.traces[CANCEL]
    assert trace["outcome"] == "fail", run.stdout
    assert "end_turn" in trace["reason"] and "after reading session/cancel" in trace["reason"]
    assert run.status == 1


def test_the_busy_prompt_given_is_the_prompt_the_cancel_case_sends(tmp_path: Path) -> None:
    busy = " ".join(f"busy{n}" for n in range(60))
    run = run_suite(
        broken_agent("no_bug"),
        "--protocol",
        "v1",
        "--only",
        CANCEL,
        "--busy-prompt",
        busy,
        trace=tmp_path,
    )
    trace = run.traces[CANCEL]
    assert trace["outcome"] == "pass", run.stdout
    assert sent_prompts(trace) == [busy]
