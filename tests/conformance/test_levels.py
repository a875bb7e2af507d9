"""Levels come only from the words of the text a case quotes (docs/conformance.md, "Levels"):
MUST / MUST NOT / REQUIRED / SHALL → MUST, SHOULD / RECOMMENDED → SHOULD, anything else
informative; a case informative by design (the words bind someone else, or it checks the suite's
own reading: a deadline, a size, an order) says so in its title or its quote's source."""

from __future__ import annotations

import pytest
from acp_protocol.conformance import envelope
from acp_protocol.conformance.client_runner import all_client_cases
from acp_protocol.conformance.levels import level_of, says_why_informative
from acp_protocol.conformance.runner import all_cases, editions, load_edition

from acp_codegen.targets.python.conformance_schema import level as generator_level

WORDS = {
    "The Agent MUST respond.": "MUST",
    "The Agent **MUST NOT** write to stdout.": "MUST",
    "A `sessionId` is REQUIRED.": "MUST",
    "The server SHALL NOT reply.": "MUST",
    "Clients SHOULD disconnect.": "SHOULD",
    "Numbers SHOULD NOT contain fractional parts.": "SHOULD",
    "It is RECOMMENDED to answer -32601.": "SHOULD",
    "An agent MAY ignore it; OPTIONAL.": "informative",
    "the receiver must error the request (lower case, LSP's prose)": "informative",
    "Indicates why the agent stopped processing the turn.": "informative",
    "MUSTARD is not a word of RFC 2119": "informative",
}


@pytest.mark.parametrize("text", sorted(WORDS))
def test_the_level_is_the_strongest_rfc_2119_word_in_capitals(text: str) -> None:
    assert level_of(text) == WORDS[text]


@pytest.mark.parametrize("text", sorted(WORDS))
def test_the_generator_reads_schema_text_by_the_same_rule(text: str) -> None:
    assert generator_level(text) == level_of(text)


def _wrong_levels(cases: list) -> list[str]:  # type: ignore[type-arg]
    wrong = []
    for case in cases:
        said = level_of(case.quote.text)
        if case.level == said:
            continue
        if case.level == "informative" and says_why_informative(case.title, case.quote.source):
            continue
        wrong.append(f"{case.id}: {case.level}, but its quote says {said}: {case.quote.text!r}")
    return wrong


@pytest.mark.parametrize("key", editions())
def test_every_agent_case_has_the_level_its_quote_says(key: str) -> None:
    assert _wrong_levels(all_cases(load_edition(key).data)) == []


@pytest.mark.parametrize("key", editions())
def test_every_client_case_has_the_level_its_quote_says(key: str) -> None:
    assert _wrong_levels(all_client_cases(load_edition(key))) == []


def test_every_envelope_entry_has_the_level_its_quote_says() -> None:
    for entry in envelope.book()["cases"]:
        said = level_of(entry["quote"])
        if entry["level"] != said:
            assert entry["level"] == "informative", entry["name"]
            assert says_why_informative(entry.get("source", "")), entry["name"]


def test_a_case_informative_by_design_says_why() -> None:
    for key in editions():
        for case in all_cases(load_edition(key).data):
            if says_why_informative(case.title, case.quote.source):
                assert case.level == "informative", case.id
