"""The rule book's seeded fuzz on the Python runtime: the corpus's 50,000 generated frames
(malformed, truncated, not UTF-8, batches, ids of every kind, responses, holds and cancels), each
judged by the book's oracle. Zero deviations: no wrong code, no answered response, no request
left unanswered, every id echoed exactly, no unexpected `null` id, every notification handed over
in order. The TypeScript runtime runs the same frames (tests/typescript/fuzz.test.ts).
"""

from __future__ import annotations

import pytest

from tests.runtime.envelope_rules import (
    BOOK,
    PROBE,
    Frames,
    Outcome,
    RuleBookHandler,
    answers_to,
    difference,
    digest,
    oracle,
)
from tests.runtime.support import connected, eventually

FUZZ = BOOK["fuzz"]
CHUNK = 500
"""Frames written at a time (a pipe's reads hold many)."""


def test_the_generator_makes_the_frames_the_book_names() -> None:
    """Both runtimes are fed the same bytes: the book names their sha256."""
    frames = Frames(FUZZ).all()
    assert len(frames) >= FUZZ["frames"]
    if digest(frames) != FUZZ["sha256"]:
        pytest.fail(
            f"the frames' sha256 is {digest(frames)}, the book says {FUZZ['sha256']}", pytrace=False
        )


async def test_fifty_thousand_seeded_frames_each_get_their_required_outcome() -> None:
    frames = Frames(FUZZ).all()
    expected = Outcome()
    for frame in frames:
        oracle(frame, expected)
    handler = RuleBookHandler()
    # No time limit asserted here (speed lives in `make bench`); a hang ends in `answers_to`'s wait.
    async with connected(handler) as (connection, peer):
        for start in range(0, len(frames), CHUNK):
            peer.transport.write(b"".join(line + b"\n" for line in frames[start : start + CHUNK]))
        peer.send_line(PROBE)
        got = await answers_to(peer, sum(expected.answers.values()), wait=60)
        await eventually(lambda: len(handler.handled) >= len(expected.handled))
        if got != expected.answers:
            pytest.fail(f"{len(frames)} frames: {difference(expected.answers, got)}", pytrace=False)
        handed, wanted = handler.handled, expected.handled
        if handed != wanted:
            pairs = zip(handed, wanted, strict=False)
            first = next(
                (i for i, (a, b) in enumerate(pairs) if a != b), min(len(handed), len(wanted))
            )
            pytest.fail(
                f"notifications handed over differ from #{first}: "
                f"{handed[first:first + 1]} instead of {wanted[first:first + 1]}",
                pytrace=False,
            )
        assert not connection.closed and connection.in_flight_count == 0
