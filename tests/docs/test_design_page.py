"""docs/design.md says only what its evidence says: every figure, table row and excerpt on the page
comes from tools/design_evidence/evidence.json (written by `python -m tools.design_evidence`),
our side of that file is recomputed here from the IR, our models and the generated manifests,
and, where `.venv-design` is installed, a fresh run of datamodel-code-generator is compared
with it too."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from acp_codegen.ir import Stability
from acp_codegen.loader import load_schema
from tests.paths import ROOT
from tools.design_evidence import excerpts, manifests, ours, theirs

PAGE = ROOT / "docs" / "design.md"
EVIDENCE = json.loads((ROOT / "tools" / "design_evidence" / "evidence.json").read_text())
SCHEMAS = EVIDENCE["schemas"]
SAMPLE_LABELS = {
    "valid": "a valid `agent_message_chunk`",
    "missing_content": "the same without `content`",
    "unknown_tag": "`sessionUpdate: future_update`",
}


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def read_as(outcome: str) -> str:
    """How the page spells a probe's outcome: a class, or refused with its errors."""
    if outcome.endswith(" errors"):
        count = int(outcome.split()[0])
        return f"refused ({count} error{'s' if count != 1 else ''})"
    return f"`{outcome}`"


def expected_rows() -> list[str]:
    """Every table row the page must show, built from the evidence."""
    rows = []
    for key, facts in SCHEMAS.items():
        schema, their, our = facts["schema"], facts["theirs"], facts["ours"]
        rows.append(
            f"| `{key}` | {schema['defs']} | {their['classes']} + {their['type_aliases']} "
            f"| {their['numbered_names']} | {their['discriminators']} "
            f"| {their['x_method']} of {schema['x_method']} "
            f"| {their['x_state']} of {schema['x_state']} "
            f"| {their['lenient_decoding']} of {schema['lenient_decoding']} |"
        )
        rows.append(
            f"| `{key}` | {our['definitions']} | {our['numbered_names']} "
            f"| {our['methods']} ({our['requests']} + {our['notifications']}) "
            f"| {our['tagged_unions']} ({our['tags_inferred']}) "
            f"| {our['state_annotations']} ({our['state_from_schema']}) |"
        )
        for sample, label in SAMPLE_LABELS.items():
            rows.append(
                f"| `{key}` | {label} | {read_as(their['union'][sample])} "
                f"| {read_as(our['union'][sample])} |"
            )
        fields = our["fields"]
        rows.append(
            f"| `{key}` | {fields['required']} | {fields['required_nullable']} "
            f"| {fields['optional']} | {fields['optional_nullable']} |"
        )
        theirs_s, ours_s = their["seconds"], our["seconds"]
        rows.append(
            f"| `{key}` | {theirs_s['cpu']:.2f} s | {ours_s['cpu']:.2f} s "
            f"| {theirs_s['cpu'] / ours_s['cpu']:.1f}\u00d7 "
            f"| {theirs_s['wall']:.2f} s | {ours_s['wall']:.2f} s |"
        )
    for runtime, facts in EVIDENCE["dependencies"].items():
        rows.append(dependency_row(runtime, facts))
    return rows


def dependency_row(runtime: str, facts: dict[str, Any]) -> str:
    if runtime == "python":
        needs = ", ".join(f"`{d}`" for d in facts["dependencies"])
        optional = "extras " + ", ".join(f"`{e}`" for e in facts["extras"])
    elif runtime == "typescript":
        needs = ", ".join(f"`{d}`" for d in facts["dependencies"]) or "none"
        optional = "optional peers " + ", ".join(f"`{p}`" for p in facts["optional_peers"])
    else:
        needs = "none" if not facts["require"] else ", ".join(facts["require"])
        outside = facts["outside_standard_library"]
        optional = (
            f"{facts['imports']} imported packages, {len(outside)} outside the standard library"
        )
        for other in facts["modules_apart"]:
            requires = ", ".join(f"`{r}`" for r in other["require"]) or "nothing"
            optional += f"; module `{other['module']}` apart, requiring {requires}"
    return f"| {runtime} | `{facts['manifest']}` | {needs} | {optional} |"


def test_every_table_row_of_the_design_page_is_the_committed_evidence(page: str) -> None:
    lines = set(page.splitlines())
    missing = [row for row in expected_rows() if row not in lines]
    assert not missing, "rows docs/design.md must show (from evidence.json):\n" + "\n".join(missing)


def test_every_figure_in_the_design_page_prose_is_the_committed_evidence(page: str) -> None:
    v2 = SCHEMAS["v2"]
    kept = EVIDENCE["kept_when_asked"]
    book = EVIDENCE["rule_book"]
    figures = [
        f"datamodel-code-generator {EVIDENCE['tool']['version']}",
        f"on {kept['method']} classes",
        f"{kept['state']} classes for the schema's {v2['schema']['x_state']}",
        f"{book['cases']} cases",
        f"{book['parse_errors']} of them",
        f"{EVIDENCE['machine']['cpus']} CPUs",
        f"load average {EVIDENCE['machine']['load']}",
        f"median of {EVIDENCE['machine']['runs']}",
    ]
    figures += [f"`{name}`" for name in book["named"]]
    figures += [" ".join(EVIDENCE["tool"]["flags"][:4])]  # the invocation shown
    figures += [flag for flag in EVIDENCE["tool"]["flags"]]
    missing = [figure for figure in figures if figure not in page]
    assert not missing, "figures docs/design.md must state (from evidence.json): " + repr(missing)
    # The tri-state claim: datamodel-code-generator reads absent and null as one `None`, and
    # writing back as the official SDK does (`exclude_none`) loses the null; ours keeps it.
    for facts in SCHEMAS.values():
        info = facts["theirs"]["session_info"]
        assert info["title_when_null"] == info["title_when_absent"] == "None"
        assert info["exclude_none"] == [{}, {}]
        assert facts["ours"]["to_wire"] == [{"title": None}, {}]


def test_every_excerpt_on_the_design_page_is_real_output(page: str) -> None:
    """Each excerpt is on the page as a block of its own, and ours are still what `generated/`
    holds (theirs are checked by a fresh run, below)."""
    for name, excerpt in EVIDENCE["excerpts"].items():
        assert f"\n{excerpt['text']}```" in page, f"docs/design.md lacks the excerpt {name}"
        source = excerpt["from"]
        if not (source.startswith("theirs:") or source == "kept"):
            text = (ROOT / source).read_text(encoding="utf-8")
            assert excerpts.cut(text, excerpts.CUTS[name]) == excerpt["text"], name


def without_seconds(facts: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in facts.items() if key != "seconds"}


def test_our_ir_keeps_what_the_evidence_says_it_keeps() -> None:
    """x-method/x-side become methods, const tags become tagged unions, x-state becomes state
    annotations, absent and null stay apart: recomputed from the pinned schemas."""
    for key, facts in SCHEMAS.items():
        protocol, _, channel = key.partition("/")
        schema = ROOT / facts["path"]
        stability = Stability.UNSTABLE if channel else Stability.STABLE
        edition = ours.lowered(schema, protocol, stability, validate=False)
        found = {**ours.ir_facts(edition), **ours.model_behaviour(key.replace("/", "."))}
        assert found == without_seconds(facts["ours"]), key
        assert ours.schema_facts(load_schema(schema)) == facts["schema"], key
        assert edition.methods and len(edition.state) == facts["ours"]["state_annotations"]


def test_the_dependencies_on_the_design_page_are_the_generated_manifests() -> None:
    assert manifests.collect() == EVIDENCE["dependencies"]
    assert ours.rule_book() == EVIDENCE["rule_book"]


@pytest.mark.skipif(
    not (theirs.VENV / ".installed").is_file(),
    reason="needs .venv-design: `.venv/bin/python -m tools.design_evidence` installs it",
)
def test_a_fresh_datamodel_code_generator_run_finds_what_is_committed() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tools.design_evidence", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
