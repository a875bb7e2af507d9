"""The envelope rule book (tests/wire/envelope_corpus.json), case by case, on the Python runtime.

Each case is a fresh connection fed the case's lines; it must write exactly the case's answers
(ids compared exactly) and hand exactly the case's notifications to its handler, and still answer
a probe request afterwards. The TypeScript runtime runs the same file
(tests/typescript/envelope_corpus.test.ts).
"""

from __future__ import annotations

from typing import Any

import pytest
from acp_protocol.runtime.cancellation import DIALECTS

from tests.runtime.envelope_rules import (
    BOOK,
    PROBE,
    Outcome,
    RuleBookHandler,
    answers_to,
    difference,
    expected_answers,
    frame_bytes,
    oracle,
)
from tests.runtime.support import connected, settle

CASES = BOOK["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_every_frame_of_the_rule_book_gets_its_required_outcome(case: dict[str, Any]) -> None:
    handler = RuleBookHandler()
    async with connected(handler, dialect=DIALECTS[case.get("dialect", "acp")]) as (
        connection,
        peer,
    ):
        for item in case["send"]:
            peer.send_line(frame_bytes(item))
        peer.send_line(PROBE)
        expected = expected_answers(case)
        got = await answers_to(peer, sum(expected.values()))
        await settle()
        if got != expected:
            pytest.fail(f"{case['name']}: {difference(expected, got)}", pytrace=False)
        if handler.handled != case["handled"]:
            pytest.fail(
                f"{case['name']}: handed {handler.handled}, expected {case['handled']}",
                pytrace=False,
            )
        assert not connection.closed, f"{case['name']}: the connection closed"


def test_the_oracle_reads_every_one_frame_case_as_the_book_does() -> None:
    """The fuzz's oracle is the book's rules (in the ACP dialect): on each case of one frame it
    predicts the case."""
    wrong = []
    for case in CASES:
        if len(case["send"]) != 1 or "dialect" in case:
            continue
        outcome = Outcome()
        oracle(frame_bytes(case["send"][0]), outcome)
        if outcome.answers != expected_answers(case) or outcome.handled != case["handled"]:
            wrong.append(case["name"])
    if wrong:
        pytest.fail(f"the oracle disagrees with {len(wrong)} cases: {wrong}", pytrace=False)


def test_the_rule_book_covers_what_a_peer_gets_wrong_most() -> None:
    """The cases the issue's fuzz found deviations in are all in the book."""
    sent = "\n".join(item for case in CASES for item in case["send"] if isinstance(item, str))
    for needle in (
        '"id":9007199254741233',
        '"id":-9223372036854775808',
        '"id":1e30',
        '"jsonrpc":2.0',
        '{"id":12,"method":"no/such_method"}',
        '"id":null,"error"',
        '[{"jsonrpc"',
    ):
        assert needle in sent, f"the rule book has no frame with {needle}"
