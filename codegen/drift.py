"""`acp-codegen check`: is the committed `generated/` what a fresh generation produces?"""

from __future__ import annotations

import difflib
import tempfile
from pathlib import Path

from codegen.pipeline import FINGERPRINT, ROOT, generate, output_files

MAX_DIFF_LINES = 40


def stale_report(root: Path = ROOT) -> str | None:
    """A readable summary of how `root/generated` differs from a fresh generation, or None."""
    committed = root / "generated"
    with tempfile.TemporaryDirectory(prefix="acp-codegen-check-") as tmp:
        fresh = Path(tmp) / "generated"
        generate(root, fresh, force=True)
        return compare_trees(committed, fresh)


def compare_trees(committed: Path, fresh: Path) -> str | None:
    old = {p.relative_to(committed).as_posix(): p for p in output_files(committed)}
    new = {p.relative_to(fresh).as_posix(): p for p in output_files(fresh)}
    for tree, files in ((committed, old), (fresh, new)):
        if (tree / FINGERPRINT).exists():
            files[FINGERPRINT] = tree / FINGERPRINT
    lines: list[str] = []
    for name in sorted(new.keys() - old.keys()):
        lines.append(f"missing from generated/: {name}")
    for name in sorted(old.keys() - new.keys()):
        lines.append(f"not produced by the generator: {name}")
    for name in sorted(old.keys() & new.keys()):
        before, after = old[name].read_text(), new[name].read_text()
        if before != after:
            diff = list(
                difflib.unified_diff(
                    before.splitlines(),
                    after.splitlines(),
                    f"generated/{name}",
                    "fresh",
                    lineterm="",
                    n=1,
                )
            )
            lines.append(f"differs: {name} ({len(diff)} diff lines)")
            lines += ["    " + line for line in diff[:MAX_DIFF_LINES]]
    if not lines:
        return None
    return "generated/ is stale; run `make generate` and commit the result.\n" + "\n".join(lines)
