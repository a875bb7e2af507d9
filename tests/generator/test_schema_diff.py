"""`acp-codegen diff`: changes computed on the IR, each marked breaking per role by the rule of
`acp_codegen.schema_diff.changes` (a sender breaks on what it must now send, a receiver on what it
may now get)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from acp_codegen import cli, ir, schema_diff
from acp_codegen.lowering import lower_edition
from acp_codegen.pipeline import ROOT
from acp_codegen.schema_diff import diff, to_markdown
from acp_codegen.schema_diff.changes import Change, compare
from tests.generator.conftest import PINNED

STRING = {"type": "string"}


def edition(defs: dict[str, Any]) -> ir.Edition:
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return lower_edition(
        doc, protocol="v1", channel=ir.Stability.STABLE, source="inline.json", sha256=""
    )


def prompt(params: dict[str, Any], result: dict[str, Any] | None = None) -> dict[str, Any]:
    """A client→agent request `session/prompt` with these params (and result)."""
    method = {"x-method": "session/prompt", "x-side": "agent"}
    return {
        "PromptRequest": {"type": "object", **method, **params},
        "PromptResponse": {"type": "object", **method, **(result or {})},
    }


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str, set[str]]]:
    return [(c.kind, c.subject, set(c.breaks)) for c in compare(edition(old), edition(new))]


def test_a_new_required_field_breaks_the_sender_only() -> None:
    old = prompt({"properties": {"text": STRING}, "required": ["text"]})
    new = prompt({"properties": {"text": STRING, "cwd": STRING}, "required": ["text", "cwd"]})
    assert changes(old, new) == [("field-added", "PromptRequest.cwd", {"client"})]


def test_a_new_optional_field_breaks_nobody() -> None:
    old = prompt({"properties": {"text": STRING}})
    new = prompt({"properties": {"text": STRING, "cwd": STRING}})
    assert changes(old, new) == [("field-added", "PromptRequest.cwd", set())]


def test_required_to_optional_and_nullable_break_the_receiver() -> None:
    old = prompt({}, {"properties": {"stop": STRING}, "required": ["stop"]})
    new = prompt({}, {"properties": {"stop": {"type": ["string", "null"]}}})
    assert changes(old, new) == [
        ("field-requiredness", "PromptResponse.stop", {"client"}),
        ("field-nullability", "PromptResponse.stop", {"client"}),
    ]


def test_a_type_change_breaks_both_sides() -> None:
    old = prompt({"properties": {"n": STRING}})
    new = prompt({"properties": {"n": {"type": "integer"}}})
    assert changes(old, new) == [("field-type-changed", "PromptRequest.n", {"agent", "client"})]


def test_a_new_value_of_a_closed_enumeration_breaks_receivers_of_an_open_one_nobody() -> None:
    def with_stop(values: list[str], open_: bool) -> dict[str, Any]:
        branches: list[Any] = [{"type": "string", "const": v} for v in values]
        stop = {"oneOf": branches + ([{"type": "string"}] if open_ else [])}
        result = {"properties": {"stop": {"$ref": "#/$defs/Stop"}}}
        return {**prompt({}, result), "Stop": stop}

    closed = changes(with_stop(["end"], False), with_stop(["end", "refusal"], False))
    assert closed == [("enum-value-added", "Stop", {"client"})]
    opened = changes(with_stop(["end"], True), with_stop(["end", "refusal"], True))
    assert opened == [("enum-value-added", "Stop", set())]


def test_a_removed_method_breaks_its_callers() -> None:
    assert changes(prompt({}), {}) == [
        ("method-removed", "session/prompt", {"client"}),
        ("type-removed", "PromptRequest", {"agent", "client"}),
        ("type-removed", "PromptResponse", {"agent", "client"}),
    ]


def test_a_lenient_decoding_rule_added_breaks_nobody() -> None:
    """2.0.2 → 2.4.0 (v1): `x-deserialize-default-on-null` on 14 list fields, nothing else."""
    field = {"type": "array", "items": STRING}
    old = prompt({"properties": {"args": field}})
    new = prompt({"properties": {"args": {**field, "x-deserialize-default-on-null": True}}})
    assert compare(edition(old), edition(new)) == (
        Change("field-decoding", "PromptRequest.args", "default-on-null added", frozenset()),
    )


def test_a_schema_against_itself_has_no_change_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(ROOT / PINNED[0].path)
    assert cli.main(["diff", path, path, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"] == {
        "changes": 0,
        "breaking_for_agents": 0,
        "breaking_for_clients": 0,
    }


def test_breaking_changes_exit_1_with_a_markdown_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = prompt({"properties": {"text": STRING}})
    new = prompt({"properties": {"text": {"type": "integer"}}})
    paths = []
    for name, defs in (("old.json", old), ("new.json", new)):
        path = tmp_path / name
        path.write_text(json.dumps({"$defs": defs}))
        paths.append(str(path))
    assert cli.main(["diff", *paths]) == 1
    out = capsys.readouterr().out
    assert "| field-type-changed | `PromptRequest.text` | string → integer | yes | yes |" in out


def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"$defs": {"A": {"$ref": "#/$defs/Gone"}}}')
    assert cli.main(["diff", str(broken), str(broken)]) == 2
    assert "$ref '#/$defs/Gone' does not resolve" in capsys.readouterr().err
    assert cli.main(["diff", "no-such-file", "also-not"]) == 2


def test_diff_reports_the_behaviour_rules_that_start_applying_between_two_versions() -> None:
    """2.0.2's v2 has no `terminal/cancel`, `tool_call/cancel` nor error code -32022; 2.4.0 has
    all three: their rules start applying, and 2.0.2's negotiation rule gives way to the
    -32022 one. Rules change no one's wire format: none is marked breaking."""
    old = ROOT / "tests/fixtures/schemas/2.0.2/schema/acp/v2/schema.json"
    new = ROOT / "tests/fixtures/schemas/2.4.0/schema/acp/v2/schema.json"
    report = diff(str(old), str(new), "v2")
    rules = {(c.kind, c.subject) for c in report.changes if c.kind.startswith("rule-")}
    assert rules == {
        ("rule-starts", "initialize answers the highest version at or below the one asked"),
        (
            "rule-starts",
            "terminal/cancel answers -32602 for an unknown, final or non-cancellable target",
        ),
        (
            "rule-starts",
            "tool_call/cancel answers -32602 for an unknown, final or non-cancellable target",
        ),
        (
            "rule-stops",
            "initialize answers the version asked when supported, else the agent's latest",
        ),
    }
    assert not any(c.breaks for c in report.changes if c.kind.startswith("rule-"))
    back = diff(str(new), str(old), "v2")
    stops = [c for c in back.changes if c.kind == "rule-stops" and "terminal/cancel" in c.subject]
    assert [c.detail for c in stops] == ["the schema has no request `terminal/cancel`"]
    assert "## Behaviour rules" in to_markdown(report)


def _package(tmp: Path, files: list[str]) -> Path:
    """A version's unpacked package holding these schema files (what `npm pack` would give)."""
    for name in files:
        (tmp / "package" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / "package" / name).write_text("{}")
    return tmp / "package"


def test_an_edition_a_version_lacks_is_one_line_listing_the_editions_it_has(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [
        "schema/v1/schema.json",
        "schema/v1/schema.unstable.json",
        "schema/v2/schema.json",
        "schema/v2/schema.unstable.json",
    ]
    monkeypatch.setattr(schema_diff, "unpack", lambda version, tmp: _package(tmp, files))
    for asked in ("v3", "v3/unstable", "v1/experimental"):
        assert cli.main(["diff", "2.4.0", "2.4.0", "--edition", asked]) == 2
        err = capsys.readouterr().err
        assert err.splitlines() == [
            f"acp-codegen: @agentclientprotocol/sdk@2.4.0 has no edition {asked}; "
            "its editions: v1, v1/unstable, v2, v2/unstable"
        ]
    # Before 2.0 a version shipped one file, the unstable v1 edition.
    monkeypatch.setattr(
        schema_diff, "unpack", lambda version, tmp: _package(tmp, ["schema/schema.json"])
    )
    assert cli.main(["diff", "0.4.0", "0.4.0", "--edition", "v1"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "acp-codegen: @agentclientprotocol/sdk@0.4.0 has no edition v1; its editions: v1/unstable"
    ]


def test_without_npm_a_version_exits_3_as_docs_diff_md_and_the_cli_epilog_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on it
    assert cli.main(["diff", "2.0.2", "2.4.0"]) == cli.MISSING_TOOL == 3
    assert capsys.readouterr().err.startswith("acp-codegen: npm is not installed")
    docs = (ROOT / "docs/diff.md").read_text()
    statuses = re.search(r"Exit status: (.*?)\n\n", docs, re.S)
    assert statuses is not None
    said = " ".join(statuses.group(1).split())
    assert "**3** npm is missing" in said
    assert "no npm" not in said
    assert "3  a tool the command needs is missing (npm)" in cli.EPILOG
