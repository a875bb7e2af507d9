"""One rule, one place: every case id `trace check` reports is a case of the conformance suite
that passive.json's `suiteCases` names, or an entry of its `rules`, and each passive entry obeys
the suite's level rule (its level from its quote's words, or informative with the reason in its
source) and quotes the schema word for word where it names the schema."""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

import pytest
from acp_protocol.conformance.client_runner import all_client_cases
from acp_protocol.conformance.levels import level_of, says_why_informative
from acp_protocol.conformance.runner import all_cases, load_edition
from acp_protocol.trace import check, check_messages, check_turns
from acp_protocol.trace.check_rules import (
    judged_by_a_recording,
    judged_in_part,
    passive_entries,
    rules_for,
    suite_case_globs,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_TEXT = re.compile(r"^schema\.json#/\$defs/(\w+)")
CASE_ID = re.compile(r'"((?:\{prefix\})?[a-z_]+\.[a-z_]+[a-z_./$]*)"')


def suite_ids(key: str) -> set[str]:
    edition = load_edition(key)
    return {c.id for c in [*all_cases(edition.data), *all_client_cases(edition)]}


@pytest.mark.parametrize("entry", passive_entries(), ids=lambda e: e["id"])
def test_a_passive_rule_has_the_level_its_quote_gives(entry: dict[str, str]) -> None:
    said = "informative" if says_why_informative(entry["source"]) else level_of(entry["quote"])
    assert entry["level"] == said
    assert entry["side"] in ("agent", "client")


@pytest.mark.parametrize("entry", passive_entries(), ids=lambda e: e["id"])
def test_a_passive_rule_quoting_the_schema_quotes_it_word_for_word(entry: dict[str, str]) -> None:
    match = SCHEMA_TEXT.match(entry["source"])
    if match is None:
        assert "JSON-RPC 2.0" in entry["source"] or "transports" in entry["source"]
        return
    words = " ".join(entry["quote"].split())
    for key in entry.get("editions", ["v1", "v2"]):
        path = ROOT / "schema" / "acp" / key.split("/")[0] / "schema.json"
        definition = json.loads(path.read_text(encoding="utf-8"))["$defs"][match[1]]
        assert words in " ".join(json.dumps(definition).replace("\\n", " ").split()), key


@pytest.mark.parametrize("key", ["v1", "v2"])
def test_no_passive_rule_is_also_a_case_of_the_suite(key: str) -> None:
    assert {e["id"] for e in passive_entries()} & suite_ids(key) == set()


def test_every_case_id_the_check_reports_is_a_rule_of_some_edition() -> None:
    known = set(rules_for("v1").by_id) | set(rules_for("v2").by_id)
    source = "".join(
        Path(module.__file__ or "").read_text(encoding="utf-8")
        for module in (check, check_messages, check_turns)
    )
    reported = set(CASE_ID.findall(source))
    assert len(reported) > 20
    missing = []
    for case in reported:
        variants = (
            [case.removeprefix("{prefix}"), "client." + case.removeprefix("{prefix}")]
            if case.startswith("{prefix}")
            else [case]
        )
        missing += [v for v in variants if v not in known and not v.endswith(".")]
    assert missing == []


def test_every_suite_case_glob_names_cases_of_the_suite() -> None:
    ids = suite_ids("v1") | suite_ids("v2")
    unmatched = [g for g in suite_case_globs() if not fnmatch.filter(ids, g)]
    assert unmatched == []


@pytest.mark.parametrize("key", ["v1", "v2"])
def test_the_suite_cases_a_recording_judges_are_the_rules_of_the_check(key: str) -> None:
    judged = {case for case in suite_ids(key) if judged_by_a_recording(case)}
    assert {"output.messages_fit_the_schema", "eof.every_request_read_is_answered"} <= judged
    assert not judged_by_a_recording("params.invalid.session/new")  # the suite sends those
    rules = rules_for(key).by_id
    assert judged <= set(rules)
    passive = {e["id"] for e in passive_entries() if key in e.get("editions", [key])}
    unadvertised = {r for r in rules if r.startswith("client.output.unadvertised.")}
    assert set(rules) == judged | passive | unadvertised


def test_a_case_judged_in_part_is_judged_and_says_why() -> None:
    in_part = json.loads((ROOT / "templates/python/conformance/passive.json").read_text())[
        "suiteCasesInPart"
    ]
    assert in_part and all(judged_by_a_recording(case) for case in in_part)
    assert all(judged_in_part(case) == why and why for case, why in in_part.items())
    assert judged_in_part("output.messages_fit_the_schema") is None
