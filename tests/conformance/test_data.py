"""The suite's data: the envelope cases are the rule book's own (tests/wire/envelope_corpus.json
stays the one source), and each edition's conformance data is the IR's (methods, capabilities
with the schema's words, levels read from those words)."""

from __future__ import annotations

import json

import pytest
from acp_protocol.conformance import envelope
from acp_protocol.conformance.runner import all_cases, load_edition
from acp_protocol.v1 import behaviour

from acp_codegen.targets.python.conformance_schema import level
from tests.paths import ROOT
from tests.starters.builds import specification

BOOK = json.loads((ROOT / "tests" / "wire" / "envelope_corpus.json").read_text(encoding="utf-8"))
SOURCE = ROOT / "templates" / "python" / "conformance" / "envelope.json"


def test_every_envelope_case_is_the_rule_books_case_unchanged() -> None:
    book = {case["name"]: case for case in BOOK["cases"]}
    copied = json.loads(SOURCE.read_text(encoding="utf-8"))["cases"]
    assert len(copied) == len({c["name"] for c in copied}) == 100
    for case in copied:
        original = book[case["name"]]
        assert {k: case[k] for k in ("rule", "send", "answers")} == {
            k: original[k] for k in ("rule", "send", "answers")
        }, case["name"]
        assert case["level"] in ("MUST", "SHOULD", "informative")
        assert original.get("dialect") is None  # ACP's own dialect only
        assert not any('"hold"' in str(s) for s in original["send"])


def test_the_package_carries_the_envelope_cases_as_the_template_has_them() -> None:
    packaged = envelope.book()
    assert packaged["generated"].startswith("Copied by acp-codegen from templates/python/")
    assert packaged["cases"] == json.loads(SOURCE.read_text(encoding="utf-8"))["cases"]


def test_echo_is_sent_as_an_extension_method_and_any_answer_with_its_id_expected() -> None:
    spaced = ' { "jsonrpc" : "2.0" ,\t"id" : 7 , "method" : "echo" } '
    assert envelope.frame_bytes(spaced) == (
        b' { "jsonrpc" : "2.0" ,\t"id" : 7 , "method" : "_conformance/echo" } '
    )
    case = {"answers": [{"id": "9007199254741233", "result": {"x": 1}}]}
    assert list(envelope.expected(case)) == ['{"answered": true, "id": 9007199254741233}']


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the Agent MUST respond with the latest protocol version it supports.", "MUST"),
        ("Implementations MUST NOT make assumptions", "MUST"),
        ("As a baseline, all Agents **MUST** support `session/new`", "MUST"),
        ("Agents SHOULD catch these exceptions", "SHOULD"),
        ("Supplying `{}` means the agent supports listing sessions.", "informative"),
        ("a mustard-coloured note that should not count", "informative"),
    ],
)
def test_a_level_is_read_from_the_schemas_capitals(text: str, expected: str) -> None:
    assert level(text) == expected


def test_the_v1_data_is_the_irs() -> None:
    edition = next(e for e in specification().editions if e.key == "v1")
    data = load_edition("v1").data
    assert data.protocol_version == edition.protocol_version == 1
    assert {(m.name, m.kind, m.side) for m in data.methods} == {
        (m.name, m.kind.value, m.side.value) for m in edition.methods
    }
    assert [(c.method, c.path, c.value) for c in data.capabilities] == [
        (c.method, c.path, c.value) for c in behaviour.CAPABILITIES
    ]
    load = data.capability("session/load")
    assert load is not None and load.quote.text == "Whether the agent supports `session/load`."
    assert load.quote.source == "schema.json#/$defs/AgentCapabilities/properties/loadSession"
    assert [r.name for r in data.rules] == [r.name for r in edition.behaviour.rules]
    assert data.negotiation.level == "MUST"  # "the Agent MUST respond with the latest …"
    assert data.negotiation.quote.source.endswith("InitializeResponse/properties/protocolVersion")
    assert data.prompt is not None and data.prompt.answer == "completion"
    assert data.prompt.cancelled_quote is not None
    assert "This stop reason MUST be returned" in data.prompt.cancelled_quote.text
    invalid = data.error(-32602)
    assert invalid is not None and "Invalid method parameter(s)." in invalid.quote.text


def test_cases_come_from_the_data_one_per_method_and_capability() -> None:
    data = load_edition("v1").data
    ids = [case.id for case in all_cases(data)]
    assert len(ids) == len(set(ids))
    agent_requests = [m.name for m in data.methods if m.side == "agent" and m.kind == "request"]
    assert {i for i in ids if i.startswith("params.invalid.")} == {
        f"params.invalid.{m}" for m in agent_requests
    }
    for capability in data.capabilities:
        assert f"capabilities.advertised_is_served.{capability.method}" in ids
        assert f"capabilities.served_is_advertised.{capability.method}" in ids
