"""The results collector (tests/field/results.py) names each field test's row and steps as the
table needs them: the agent from its module, the client from its marker, its parameters or its
name, the steps from its marker, the registry or the words of its name; a replay of a recording
counts for the row of the test that made it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.field import results
from tests.field.results import client_of, negotiated, recorded_by, steps_of


@dataclass
class FakeItem:
    """What the collector reads of a pytest item."""

    originalname: str
    fspath: str = "tests/field/test_codex_turns.py"
    markers: dict[str, tuple[Any, ...]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.originalname

    def get_closest_marker(self, name: str) -> Any:
        return (
            getattr(pytest.mark, name)(*self.markers[name]).mark if name in self.markers else None
        )


def item(name: str, **markers: tuple[Any, ...]) -> Any:
    return FakeItem(name, markers=markers)


def test_a_marker_says_the_steps_in_the_table_order() -> None:
    marked = item("test_anything", field_steps=("write allowed", "words"))
    assert steps_of(marked) == ["words", "write allowed"]


def test_the_registry_says_the_steps_a_claude_test_name_does_not() -> None:
    claude: Any = FakeItem(
        "test_a_turn_reads_a_file_and_writes_one_once_the_user_allows_it",
        "tests/field/test_claude_turns.py",
    )
    assert steps_of(claude) == ["words", "read", "write allowed"]


@pytest.mark.parametrize(
    ("name", "steps"),
    [
        ("test_a_write_the_user_rejects_is_never_written", ["write rejected"]),
        ("test_ctrl_c_during_a_long_answer_ends_the_turn_cancelled", ["cancel"]),
        ("test_session_load_brings_the_conversation_back", ["load/resume"]),
        ("test_every_recorded_message_decodes_in_every_runtime", ["tolerance"]),
        ("test_every_runtime_ends_in_the_state_the_updates_describe", ["state"]),
        ("test_a_v2_client_refuses_a_v1_body_under_version_2_in_one_line", []),
    ],
)
def test_otherwise_the_words_of_the_name_say_the_steps(name: str, steps: list[str]) -> None:
    assert steps_of(item(name)) == steps


def test_the_client_comes_from_the_marker_the_parameters_or_the_name() -> None:
    assert client_of(item("t", field_client=("go typed",)), {}) == ("go typed", "")
    assert client_of(item("t"), {"client": ("python", "v2")}) == ("python", "v2")
    assert client_of(item("t"), {"lang": "go", "protocol": "v1"}) == ("go", "v1")
    assert client_of(item("t"), {"client": ("example", "v1")}) == ("python example", "v1")
    assert client_of(item("test_the_example_client_reads"), {}) == ("python example", "")
    assert client_of(item("test_something_else"), {}) == ("", "")


def test_a_replay_counts_for_the_row_of_the_test_that_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = {
        "test": "t.py::turn[go-v2]",
        "agent": "codex-acp",
        "version": "2.6.0",
        "edition": "v2",
        "client": "go",
        "recording": "test_codex_turns.turn_go-v2.jsonl",
    }
    row = recorded_by("test_codex_turns.turn_go-v2.jsonl", [made])
    assert row == {key: made[key] for key in ("agent", "version", "edition", "client", "recording")}
    # A recording no entry names: the agent from its file name, the edition from its frames.
    monkeypatch.setattr(results, "RESULTS", tmp_path / "results.json")
    frames = [
        {"t": 0, "dir": "sent", "json": {"jsonrpc": "2.0", "id": 7, "method": "initialize"}},
        {"t": 0, "dir": "received",
         "json": {"jsonrpc": "2.0", "id": 7, "result": {"protocolVersion": 1}}},
    ]  # fmt: skip
    (tmp_path / "test_claude_sessions.x.jsonl").write_text("\n".join(map(json.dumps, frames)))
    assert negotiated(tmp_path / "test_claude_sessions.x.jsonl") == "v1"
    unnamed = recorded_by("test_claude_sessions.x.jsonl", [])
    assert (unnamed["agent"], unnamed["version"], unnamed["edition"]) == (
        "claude-agent-acp",
        "0.101.0",
        "v1",
    )
