"""The field's tooling (tools/conformance_field, `make conformance`) without the rows that need
the network: a row built and run as `make conformance ROW=python-v1` runs it, its result read
from the suite's traces and published as a table row; and docs/conformance.md's field section as
published: a table whose every row names the command that reruns it."""

from __future__ import annotations

import json
from pathlib import Path

from tools.conformance_field import publish
from tools.conformance_field.rows import BY_KEY, ROWS
from tools.conformance_field.run import run_row

SELECTED = ("negotiation.*", "capabilities.*", "prompt.*")
"""Enough of the suite for the row to be a real run, few enough to be quick."""


def test_the_python_v1_starter_row_runs_and_publishes_its_table_row(tmp_path: Path) -> None:
    ran = run_row(BY_KEY["python-v1"], only=SELECTED, folder=tmp_path / "run")
    result = ran.result
    assert "error" not in result, result
    assert result["status"] == 0 and result["edition"] == "v1"
    traces = [json.loads(p.read_text()) for p in (tmp_path / "run" / "traces").glob("*.json")]
    assert result["cases"] == len(traces) > 10
    for level in ("MUST", "SHOULD", "informative"):
        assert result["counts"][level] == {
            outcome: sum(1 for t in traces if (t["level"], t["outcome"]) == (level, outcome))
            for outcome in ("pass", "fail", "skip")
        }
    # Our starter fails no MUST or SHOULD case.
    assert result["counts"]["MUST"]["fail"] == result["counts"]["SHOULD"]["fail"] == 0
    assert ran.failures == [t for t in traces if t["outcome"] == "fail"]
    assert (tmp_path / "run" / "report.html").read_text().startswith("<!DOCTYPE html>")

    doc = tmp_path / "conformance.md"
    doc.write_text(f"# page\n\n{publish.START}\n(old)\n{publish.END}\n\nafter\n")
    publish.write_section(publish.section({"python-v1": result}), doc)
    (row,) = publish.read_section(doc)
    assert row["rerun"] == "`make conformance ROW=python-v1`"
    must = result["counts"]["MUST"]
    assert row["MUST pass/fail/skip"] == f"{must['pass']}/{must['fail']}/{must['skip']}"
    assert row["failures"] == "none"
    assert doc.read_text().endswith(f"{publish.END}\n\nafter\n")


def test_docs_field_section_has_every_row_with_its_rerun_command() -> None:
    rows = publish.read_section()
    reruns = [row["rerun"] for row in rows]
    assert reruns == [f"`make conformance ROW={row.key}`" for row in ROWS]
    published = publish.load()
    for row, shown in zip(ROWS, rows, strict=True):
        entry = published[row.key]
        assert shown["version"] == row.version and shown["edition"] == row.protocol
        if entry.get("failed"):
            details = publish.DOCS / publish.details_name(row.key)
            text = details.read_text(encoding="utf-8")
            assert all(f"## `{case}`" in text for case in entry["failed"])


def test_a_frame_cannot_end_the_block_that_shows_it() -> None:
    hostile = "```\n# not a heading\n````"
    text = publish.fenced(hostile)
    fence = text.splitlines()[0].removesuffix("text")
    assert fence == "`````" and text.endswith("\n" + fence)
    assert publish.cell("a | b\nc") == "a \\| b c"


def test_every_row_has_a_build() -> None:
    from tools.conformance_field.builds import builds

    assert {row.build for row in ROWS} <= set(builds())
    assert len(BY_KEY) == len(ROWS)  # one key per row
