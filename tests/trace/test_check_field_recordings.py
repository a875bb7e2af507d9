"""The field's third-party agents recorded under the suite (docs/conformance/recordings, written by
`make conformance`: tools/conformance_field/recorded.py), held to issue 49 offline: recordings
of the production agents "round-trip: replaying the recorded bytes reproduces them exactly, and
`trace check` on each reports exactly the violations the conformance suite reports for the same
program (same ids)".

Each row's manifest says what the suite failed in the run that made the recordings (the cases a
recording can judge, passive.json's `suiteCases`, the agent behind `trace record` and a `tee`
on each side), and what the `tee`s saw the agent read and write (a length and a SHA-256).
Where the data says a recording shows a case only in part (`suiteCasesInPart`), the check
fails it only where the suite does, as in test_check_side_by_side.py.
"""

from __future__ import annotations

import fnmatch
import gzip
import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.trace.check_rules import judged_by_a_recording
from acp_protocol.trace.frames import replayed

from tests.trace.side_by_side import disagreement, violations
from tools.conformance_field.recorded import RECORDED, RECORDINGS


def keys() -> list[str]:
    return sorted(path.stem for path in RECORDINGS.glob("*.json"))


@cache
def manifest(key: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((RECORDINGS / f"{key}.json").read_text(encoding="utf-8"))
    return loaded


def unpacked(entry: dict[str, Any], folder: Path) -> Path:
    path = folder / Path(entry["file"]).name.removesuffix(".gz")
    path.write_bytes(gzip.decompress((RECORDINGS / entry["file"]).read_bytes()))
    return path


def test_the_field_rows_recorded_are_the_ones_make_conformance_records() -> None:
    assert keys(), "no recorded row: run `make conformance ROW=codex-acp`"
    assert set(keys()) <= set(RECORDED)
    for key in keys():
        listed = {entry["file"] for entry in manifest(key)["recordings"]}
        assert listed == {f"{key}/{p.name}" for p in (RECORDINGS / key).glob("*.jsonl.gz")}, key
        assert len(listed) >= 5, key


@pytest.mark.parametrize("key", keys())
def test_each_recording_replays_what_the_agent_read_and_wrote(key: str, tmp_path: Path) -> None:
    """Whole where the agent exited on its own; where the suite ended its process group, the
    bytes both the recording and the `tee` hold are the same."""
    for entry in manifest(key)["recordings"]:
        recorded = replayed(unpacked(entry, tmp_path))
        for direction in ("sent", "received"):
            tee, replay = entry[direction], recorded[direction]
            if entry["exited"]:
                assert len(replay) == tee["bytes"] == tee["checked"], (entry["file"], direction)
            else:
                assert tee["checked"] == min(len(replay), tee["bytes"]), (entry["file"], direction)
            checked = hashlib.sha256(replay[: tee["checked"]]).hexdigest()
            assert checked == tee["sha256"], (entry["file"], direction)


@pytest.mark.parametrize("key", keys())
def test_trace_check_fails_the_cases_the_suite_failed_in_the_same_run(
    key: str, tmp_path: Path
) -> None:
    """The cases compared are the ones the run ran (its `only`) that a recording judges today."""
    ran = manifest(key)
    found = {
        v.case
        for entry in ran["recordings"]
        for v in violations(unpacked(entry, tmp_path))
        if v.side == "agent" and any(fnmatch.fnmatchcase(v.case, g) for g in ran["only"])
    }
    failed = {case for case in ran["failed"] if judged_by_a_recording(case)}
    assert disagreement(found, failed) == []
