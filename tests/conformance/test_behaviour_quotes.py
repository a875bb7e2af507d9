"""The ACP behaviour families (sessions, modes, content, mcp_servers, auth, unknown_fields) quote
the schema word for word at the pointer they name (or JSON-RPC 2.0, by name), and each case's
level is the one its quote's words give; a case resting on a reading of the suite's own says so
and is informative.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.conformance import auth, content, mcp_servers, modes, sessions, unknown_fields
from acp_protocol.conformance.cases import JSON_RPC
from acp_protocol.conformance.levels import level_of
from acp_protocol.conformance.runner import editions, load_edition

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = (sessions, modes, content, mcp_servers, auth, unknown_fields)


def described(schema: dict[str, Any], pointer: str) -> str:
    node: Any = schema
    for step in pointer.removeprefix("#/").split("/"):
        node = node[int(step)] if isinstance(node, list) else node[step]
    return " ".join(str(node.get("description", "")).split())


@pytest.mark.parametrize("key", editions())
def test_every_behaviour_case_quotes_the_schema_at_its_pointer_and_takes_its_level(
    key: str,
) -> None:
    data = load_edition(key).data
    folder = "v" + key.split("/")[0].removeprefix("v")
    cases = [case for family in FAMILIES for case in family.cases(data)]
    assert cases
    for case in cases:
        if case.quote.source.startswith(JSON_RPC):  # JSON-RPC's words, not the schema's
            assert case.level == level_of(case.quote.text), case.id
            continue
        source, pointer = case.quote.source.split("#", 1)
        schema = json.loads((ROOT / "schema" / "acp" / folder / source).read_text())
        if case.quote.text.endswith("(the case's reading)."):
            assert case.level == "informative" and "informative" in case.title, case.id
            described(schema, "#" + pointer)  # the pointer names a real definition
            continue
        assert case.quote.text in described(schema, "#" + pointer), (case.id, pointer)
        assert case.level == level_of(case.quote.text), case.id
        if case.level == "informative":
            assert "informative" in case.title, case.id


def test_levels_come_from_the_capital_words_only() -> None:
    assert level_of("Agents MUST NOT send it") == "MUST"
    assert level_of("All Agents **MUST** support") == "MUST"
    assert level_of("It is REQUIRED.") == "MUST"
    assert level_of("Agents SHOULD NOT") == "SHOULD"
    assert level_of("The agent should: stream the history") == "informative"
    assert level_of("Must be one of the methods advertised") == "informative"
