"""The rule book's seeded fuzz on the Go runtime: the same 50,000 frames the Python and
TypeScript runtimes are fed (tests/runtime/test_envelope_fuzz.py, tests/typescript/fuzz.test.ts),
made by the book's generator and judged by its oracle here, written to a folder that the Go test
`TestEnvelopeFuzz` (tests/go/envelope_corpus_test.go) feeds to one connection. Zero deviations:
every required answer, ids echoed exactly, no answered response, every notification in order."""

from __future__ import annotations

import json
from pathlib import Path

from tests.go.support import TESTS, assert_ok, run_go
from tests.runtime.envelope_rules import BOOK, Frames, Outcome, digest, oracle

FUZZ = BOOK["fuzz"]


def test_fifty_thousand_seeded_frames_each_get_their_required_outcome_in_go(
    tmp_path: Path,
) -> None:
    frames = Frames(FUZZ).all()
    assert len(frames) >= 50_000 and digest(frames) == FUZZ["sha256"]
    expected = Outcome()
    for frame in frames:
        oracle(frame, expected)
    answers = []
    for key, count in expected.answers.items():
        answer = json.loads(key)
        entry: dict[str, object] = {"id": json.dumps(answer["id"]), "count": count}
        if "error" in answer:
            entry["error"] = answer["error"]
        else:
            entry["result"] = answer["result"]
        answers.append(entry)
    (tmp_path / "frames.ndjson").write_bytes(b"".join(frame + b"\n" for frame in frames))
    (tmp_path / "expected.json").write_text(
        json.dumps({"answers": answers, "handled": expected.handled})
    )
    result = run_go(
        ["go", "test", "-count=1", "-run", "^TestEnvelopeFuzz$", "-v", "."],
        TESTS,
        ACP_ENVELOPE_FUZZ=str(tmp_path),
    )
    assert_ok(result)
    assert "as the book requires" in result.stdout
