"""`acp-codegen check`: is the committed `generated/` what a fresh generation produces?"""

from __future__ import annotations

import difflib
import tempfile
from pathlib import Path

from acp_codegen.pipeline import (
    FINGERPRINT,
    ROOT,
    generate,
    generate_package,
    output_files,
    package_parts,
)

MAX_DIFF_LINES = 40


def stale_report(root: Path = ROOT, committed: Path | None = None) -> str | None:
    """A readable summary of how `committed` (default root/generated) differs from a fresh
    generation, or None."""
    committed = committed or root / "generated"
    with tempfile.TemporaryDirectory(prefix="acp-codegen-check-") as tmp:
        fresh = Path(tmp) / "generated"
        generate(root, fresh, force=True)
        return compare_trees(committed, fresh)


def stale_package_report(root: Path, out: Path, package: str, command: str) -> str | None:
    """The same for a package written with `generate --out out --package package`."""
    parts = package_parts(package)
    with tempfile.TemporaryDirectory(prefix="acp-codegen-check-") as tmp:
        fresh = generate_package(root, Path(tmp), package, command).out_root
        label = "/".join(parts) + "/"
        return compare_trees(out.joinpath(*parts), fresh, label, command)


def compare_trees(
    committed: Path, fresh: Path, label: str = "generated/", command: str = "make generate"
) -> str | None:
    old = {p.relative_to(committed).as_posix(): p for p in output_files(committed)}
    new = {p.relative_to(fresh).as_posix(): p for p in output_files(fresh)}
    for tree, files in ((committed, old), (fresh, new)):
        if (tree / FINGERPRINT).exists():
            files[FINGERPRINT] = tree / FINGERPRINT
    lines: list[str] = []
    for name in sorted(new.keys() - old.keys()):
        lines.append(f"missing from {label}: {name}")
    for name in sorted(old.keys() - new.keys()):
        lines.append(f"not produced by the generator: {name}")
    for name in sorted(old.keys() & new.keys()):
        before, after = old[name].read_text(), new[name].read_text()
        if before != after:
            diff = list(
                difflib.unified_diff(
                    before.splitlines(),
                    after.splitlines(),
                    f"{label}{name}",
                    "fresh",
                    lineterm="",
                    n=1,
                )
            )
            lines.append(f"differs: {name} ({len(diff)} diff lines)")
            lines += ["    " + line for line in diff[:MAX_DIFF_LINES]]
    if not lines:
        return None
    return f"{label} is stale; run `{command}` and commit the result.\n" + "\n".join(lines)
