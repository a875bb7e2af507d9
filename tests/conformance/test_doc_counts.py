"""The case counts docs/conformance.md states are `--list`'s, per edition, so they can never go
stale: when cases are added or a level changes, this test fails and prints the lines to paste
into the docs (section "The cases")."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conformance.suite import run_suite
from tests.paths import ROOT

DOCS = ROOT / "docs" / "conformance.md"


def counted(protocol: str) -> Counter[str]:
    """`--list`'s cases of `protocol` by level, and by family (`envelope.` …)."""
    run = run_suite([], "--protocol", protocol, "--list")
    assert run.status == 0, run.stderr
    counts: Counter[str] = Counter()
    for line in run.stdout.splitlines():
        level, case_id = line.split()[:2]
        counts["all"] += 1
        counts[level] += 1
        counts[case_id.split(".", 1)[0] + "."] += 1
    return counts


def doc_line(protocol: str, counts: Counter[str]) -> str:
    return (
        f"- ACP {protocol}: {counts['all']} cases, {counts['MUST']} MUST, {counts['SHOULD']} SHOULD"
        f" and {counts['informative']} informative"
    )


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_the_docs_state_each_editions_case_counts_as_list_prints_them(protocol: str) -> None:
    line = doc_line(protocol, counted(protocol))
    assert line in DOCS.read_text(encoding="utf-8").splitlines(), (
        f"docs/conformance.md is stale: paste this line in place of the ACP {protocol} one:\n"
        + line
    )


def test_the_docs_state_the_envelope_familys_count() -> None:
    envelope = {counted(p)["envelope."] for p in ("v1", "v2")}
    assert len(envelope) == 1
    (count,) = envelope
    assert f"the {count} cases of the envelope rule book" in DOCS.read_text(encoding="utf-8")
