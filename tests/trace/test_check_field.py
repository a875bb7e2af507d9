"""`trace check` on the field's recordings (tests/field/recordings: whole turns of production
agents with our starter clients): it finds what docs/field.md says each agent does wrong, where
a recording can show it, with the suite's case ids, and nothing else. Our starter clients break
no rule in any of them."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from acp_protocol.trace.check import Violation, check_recording
from acp_protocol.trace.imports import load

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ROOT / "tests" / "field" / "recordings"
FIELD_DOC = ROOT / "docs" / "field.md"

EXPECTED: dict[str, set[str]] = {
    # codex-acp: a rejected write ends the turn `cancelled` with no session/cancel (v1), and
    # the edit's tool call keeps no final status
    r"test_codex_turns\.test_a_write_the_user_rejects_is_never_written_.*-v1": {
        "prompt.cancelled_only_after_a_cancel",
        "tool_calls.end_with_a_final_status",
    },
    r"test_codex_turns\.test_a_write_the_user_rejects_is_never_written_.*-v2": {
        "tool_calls.end_with_a_final_status"
    },
    # gemini-cli: a rejected tool call is never closed; session/load answered before the replay
    r"test_gemini_turns\.test_a_write_the_user_rejects_is_never_written_and_the_turn_goes_on_": {
        "tool_calls.end_with_a_final_status"
    },
    r"test_gemini_turns\.test_session_load_replays_the_conversation_before_its_answer$": {
        "sessions.load_replays_history"
    },
    # fast-agent: protocolVersion 2 answered with a v1 initialize body
    r"test_fast_agent_turns\.test_a_v2_client_refuses_a_v1_body_under_version_2_in_one_line_": {
        "output.messages_fit_the_schema"
    },
    # mistral-vibe: a batch kills it (no answer, exit 1); its input still open (a recording of
    # format 1 does not say), the suite's end-of-input case asks nothing of that
    r"test_mistral_vibe_turns\.test_a_json_rpc_batch_is_answered_and_the_agent_goes_on$": {
        "envelope.batch_of_one_request_is_one_invalid_request_with_null_id",
    },
}
NOT_IN_A_RECORDING = {
    "test_claude_turns.test_a_turn_reads_a_file_and_writes_one_once_the_user_allows_it_python-v1": (
        "a warning chunk no model wrote: a text the user reads, no rule of the protocol"
    ),
    "test_codex_sessions.test_a_shell_command_runs_in_codex_not_in_the_clients_terminal": (
        "terminal content naming a terminal no terminal/create made: no schema text makes it a rule"
    ),
    "test_gemini_turns.test_writing_a_new_file_through_the_client_file_service": (
        "the agent misreads a -32002 error's message: its own failure, not a frame"
    ),
    "test_gemini_turns.test_session_load_brings_the_conversation_back_in_a_new_process": (
        "session files named by the minute: a -32603 answer is allowed"
    ),
}
"""The recordings docs/field.md links from "What the agents do wrong" whose fault no rule a
recording can judge covers, and why."""


def names() -> list[str]:
    return sorted(p.name.removesuffix(".jsonl") for p in RECORDINGS.glob("*.jsonl"))


@cache
def violations(name: str) -> tuple[Violation, ...]:
    loaded = load(RECORDINGS / f"{name}.jsonl")
    return tuple(check_recording(loaded.frames, loaded.exit_status, loaded.input_closed))


def expected(name: str) -> set[str]:
    return set().union(*(cases for rx, cases in EXPECTED.items() if re.search(rx, name)))


@pytest.mark.parametrize("name", names())
def test_the_check_finds_what_docs_field_md_lists_and_nothing_else(name: str) -> None:
    assert {v.case for v in violations(name)} == expected(name)


def test_our_starter_clients_break_no_rule_in_any_field_recording() -> None:
    starters = [n for n in names() if re.search(r"_(python|typescript|go)(-v[12])?$", n)]
    assert len(starters) > 60
    assert [(n, v.case) for n in starters for v in violations(n) if v.side == "client"] == []


def test_every_recording_docs_field_md_lists_is_checked_or_says_why_not() -> None:
    text = FIELD_DOC.read_text(encoding="utf-8")
    section = text.split("## What the agents do wrong", 1)[1].split("\n## ", 1)[0]
    linked = set(re.findall(r"recordings/([^)]+)\.jsonl\)", section))
    assert linked, "docs/field.md links no recording from its faults"
    for name in sorted(linked):
        assert expected(name) or name in NOT_IN_A_RECORDING, name
