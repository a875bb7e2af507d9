"""`trace check` on our own starters: the Python starter client and agent of v2
(`acp-codegen scaffold`), recorded through `trace record` over a turn that asks permission, break
no rule on either side. The v1 pair is docs/trace.md's runnable example ("Check a recording"),
run by tests/docs: one pair per edition, each run once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from acp_protocol.trace.check import check_recording
from acp_protocol.trace.imports import load

ROOT = Path(__file__).resolve().parents[2]
CODEGEN = ROOT / ".venv" / "bin" / "acp-codegen"
EDITIONS = ("v2",)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("starters")
    runs = {}
    for edition in EDITIONS:
        for role in ("agent", "client"):
            out = folder / f"{role}_{edition}.py"
            scaffold = [str(CODEGEN), "scaffold", role, "--lang", "python", "--protocol", edition]
            subprocess.run([*scaffold, "--out", str(out)], check=True, capture_output=True)
        recording = folder / f"{edition}.jsonl"
        recorder = [sys.executable, "-m", "acp_protocol.trace", "record", "--out", str(recording)]
        client = [sys.executable, str(folder / f"client_{edition}.py"), "--approve-all"]
        command = [*client, "--prompt", "ask to write out.txt", "--", *recorder, "--"]
        runs[edition] = (
            recording,
            subprocess.Popen(
                [*command, sys.executable, str(folder / f"agent_{edition}.py")],
                cwd=folder,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            ),
        )
    for _recording, process in runs.values():
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode(errors="replace")
    return {edition: recording for edition, (recording, _) in runs.items()}


@pytest.mark.parametrize("edition", EDITIONS)
def test_our_starter_pair_breaks_no_rule(recordings: dict[str, Path], edition: str) -> None:
    loaded = load(recordings[edition])
    methods = {f.value.get("method") for f in loaded.frames if f.message is not None}
    assert {"initialize", "session/prompt", "session/request_permission"} <= methods
    assert check_recording(loaded.frames, loaded.exit_status, loaded.input_closed) == []
