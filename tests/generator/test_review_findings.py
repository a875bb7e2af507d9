"""Review findings as a user meets them: a behaviour rule that rests on a sentence the schema no
longer says still applies; `acp-codegen generate` prints one `review:` line per rule, naming the
rule and the JSON pointer, and succeeds; `--strict` makes the finding a failure (exit 2) and
writes nothing."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.generator.conftest import rewrite_schema

QUOTE = "patches the stored metadata by top-level key"


def reword_session_info_update(doc: dict[str, Any]) -> None:
    """v2's SessionInfoUpdate no longer says its `_meta` "patches the stored metadata by
    top-level key" (the rule and the field stay)."""
    node = doc["$defs"]["SessionInfoUpdate"]
    for holder in (node, node["properties"]["_meta"]):
        if "description" in holder:
            holder["description"] = re.sub(
                r"\s+".join(QUOTE.split()), "updates the metadata", holder["description"]
            )


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_codegen.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_reworded_quote_is_one_review_line_and_generation_succeeds(
    project_root: Path, tmp_path: Path
) -> None:
    rewrite_schema(project_root, "schema/acp/v2/schema.json", reword_session_info_update)
    out = tmp_path / "out"
    done = cli("--root", str(project_root), "generate", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("acp-codegen: review: schema.json#/$defs/SessionInfoUpdate/description:")
    assert "'session_info_update patches `_meta` by top-level key' applies" in line
    # The rule is still carried out, and the generated behaviour page says it awaits review.
    page = (out / "python/acp_protocol/v2/behaviour.py").read_text()
    assert 'meta_policy="patch"' in page
    assert "(REVIEW: no longer under #/$defs/SessionInfoUpdate)" in " ".join(page.split())
    # A second run has nothing to do and still reports the finding.
    again = cli("--root", str(project_root), "generate", "--out", str(out))
    assert again.returncode == 0 and "up to date" in again.stdout
    assert again.stderr.strip().splitlines() == [line]


def test_strict_turns_a_review_finding_into_a_failure_and_writes_nothing(
    project_root: Path, tmp_path: Path
) -> None:
    rewrite_schema(project_root, "schema/acp/v2/schema.json", reword_session_info_update)
    out = tmp_path / "out"
    done = cli("--root", str(project_root), "generate", "--strict", "--out", str(out))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "schema.json#/$defs/SessionInfoUpdate/description" in done.stderr
    assert not out.exists()
