"""The pipeline end to end: golden record, determinism, refusal of bad input, no-op reruns."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from acp_codegen import cli
from acp_codegen.drift import compare_trees
from acp_codegen.pipeline import ROOT, generate, tree_hash
from acp_codegen.problems import GenerationError
from tests.generator.conftest import PINNED, models_path, rewrite_schema


def test_fresh_generation_matches_the_golden_record_byte_for_byte(tmp_path: Path) -> None:
    """The committed generated/ is the golden record (written by an earlier run); a fresh render
    (no render cache) and a run from the cache are byte-identical to it."""
    first = generate(ROOT, tmp_path / "first", force=True, use_cache=False).out_root
    second = generate(ROOT, tmp_path / "second", force=True).out_root
    assert tree_hash(first) == tree_hash(second)
    assert (first / ".fingerprint.json").read_bytes() == (second / ".fingerprint.json").read_bytes()
    assert compare_trees(ROOT / "generated", first) is None


def test_broken_schema_lists_every_problem_exits_2_and_leaves_generated_untouched(
    project_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One problem in the first pinned edition, another in the last: one run reports both."""
    first, last = PINNED[0], PINNED[-1]

    def drop_side(doc: dict[str, Any]) -> None:
        del doc["$defs"]["PromptRequest"]["x-side"]

    def dangling_ref(doc: dict[str, Any]) -> None:
        doc["$defs"]["PromptRequest"]["properties"]["sessionId"] = {"$ref": "#/$defs/Gone"}

    rewrite_schema(project_root, first.path, drop_side)
    rewrite_schema(project_root, last.path, dangling_ref)
    before = tree_hash(project_root / "generated")

    status = cli.main(["--root", str(project_root), "generate", "--force"])

    err = capsys.readouterr().err
    assert status == 2
    first_name, last_name = Path(first.path).name, Path(last.path).name
    assert f"{first_name}#/$defs/PromptRequest: `x-method` 'session/prompt' has no `x-side`" in err
    assert f"{last_name}#/$defs/PromptRequest/properties/sessionId/$ref: $ref '#/$defs/Gone'" in err
    assert tree_hash(project_root / "generated") == before
    assert not list(project_root.glob(".generated-staging-*"))


def test_schema_that_does_not_match_its_lock_is_refused(project_root: Path) -> None:
    path = project_root / PINNED[0].path
    path.write_text(path.read_text().replace("Protocol", "Protocol!", 1))
    with pytest.raises(
        GenerationError, match=re.escape(PINNED[0].path) + r" has sha256 [0-9a-f]{12}…, the lock"
    ):
        generate(project_root, force=True)


def test_rerun_with_nothing_changed_is_a_no_op(project_root: Path) -> None:
    outcome = generate(project_root)
    assert outcome.changed is False


def test_hand_edited_output_is_regenerated(project_root: Path) -> None:
    """The fingerprint covers the output too: an edit under generated/ is not taken as current."""
    models = project_root / "generated" / models_path(PINNED[0])
    models.write_text(models.read_text() + "\n# edited by hand\n")
    assert generate(project_root).changed is True
    assert "# edited by hand" not in models.read_text()
    assert compare_trees(ROOT / "generated", project_root / "generated") is None
