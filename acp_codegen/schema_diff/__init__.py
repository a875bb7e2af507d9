"""`acp-codegen diff OLD NEW`: what changed between two ACP schemas, and whom it breaks.

OLD and NEW are schema files, folders laid out as `schema/acp` is, or versions: `crate:1.20.0`
(the Rust crate; the pinned one is read from `schema/acp`), `npm:2.4.0` (fetched with `npm pack`)
or a bare version (`sources.resolve` says which it took); `--edition` picks the file of a folder or
a version (`v1`, `v1/unstable`, `v2`, …). Both are
validated and lowered to the typed IR, and compared there (`changes.compare`), behaviour rules
included (`rules.rule_changes`). The report is
Markdown (`templates/diff/report.md.jinja`) or JSON (`to_json`, shape in docs/diff.md).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_codegen import ir, resources, templating
from acp_codegen.loader import load_schema
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.behaviour import RULES
from acp_codegen.problems import GenerationError, SchemaProblems
from acp_codegen.schema_diff.changes import Change, compare
from acp_codegen.schema_diff.rules import rule_changes
from acp_codegen.schema_diff.sources import crate_files, folder_files, package_files, resolve
from acp_codegen.schema_lock import PACKAGE, unpack
from acp_codegen.validation import validate_schema

TEMPLATES = resources.TEMPLATES / "diff"
INPUT_HELP = (
    "a schema file, a folder laid out as schema/acp, crate:V, npm:V, or V (crate if pinned)"
)


@dataclass(frozen=True, slots=True)
class Report:
    old: str
    new: str
    edition: str
    changes: tuple[Change, ...]

    def breaking_for(self, role: str) -> int:
        return sum(1 for c in self.changes if role in c.breaks)

    @property
    def breaking(self) -> bool:
        return any(c.breaking for c in self.changes)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def diff(
    old: str,
    new: str,
    edition: str = "v1",
    *,
    root: Path = resources.DATA_ROOT,
    say: Callable[[str], None] = _stderr,
) -> Report:
    """Compare two schemas (files, folders or versions; `root`'s schema/lock.json says which crate
    version is pinned, `say` takes the line naming a bare version's source); raises
    `SchemaProblems` or `GenerationError`."""
    with tempfile.TemporaryDirectory(prefix="acp-diff-") as tmp:
        before, old_label = _load(old, edition, Path(tmp) / "old", root, say)
        after, new_label = _load(new, edition, Path(tmp) / "new", root, say)
    changes = compare(before, after) + tuple(rule_changes(before, after))
    return Report(old_label, new_label, edition, changes)


def _load(
    arg: str, edition: str, tmp: Path, root: Path, say: Callable[[str], None]
) -> tuple[ir.Edition, str]:
    protocol, _, channel_name = edition.partition("/")
    asked = protocol if channel_name == "stable" else edition  # `v1/stable` is `v1`
    path = Path(arg)
    if path.is_file():
        label = str(path)
    else:
        source = resolve(arg, root)
        tmp.mkdir(parents=True)
        try:
            if source.kind == "folder":
                shipped, name, base = folder_files(Path(arg)), arg, Path(arg)
            elif source.kind == "crate":
                shipped, name, base = crate_files(source.where, root, tmp)
            else:
                base = unpack(source.where, tmp)
                shipped, name = package_files(base), f"{PACKAGE}@{source.where}"
        except GenerationError as exc:
            if source.note is None:
                raise
            raise type(exc)(f"{exc} ({source.note})") from exc  # MissingTool stays one
        found = shipped.get(asked)
        if found is None:
            editions = ", ".join(sorted(shipped)) or "none"
            raise GenerationError(f"{name} has no edition {edition}; its editions: {editions}")
        if source.note is not None:
            say(f"acp-codegen: {source.note}")
        path, label = found, f"{name} {found.relative_to(base).as_posix()}"
    try:
        channel = ir.Stability(channel_name or "stable")
    except ValueError:
        raise GenerationError(
            f"--edition {edition}: an edition is a protocol and a channel, like v1 or v2/unstable"
        ) from None
    doc = load_schema(path)
    problems = validate_schema(doc, path.name)
    if problems:
        raise SchemaProblems(problems)
    edition_ir = lower_edition(
        doc, protocol=protocol, channel=channel, source=path.name, sha256="", rules=RULES
    )
    return edition_ir, label


def to_json(report: Report) -> dict[str, Any]:
    return {
        "old": report.old,
        "new": report.new,
        "edition": report.edition,
        "summary": {
            "changes": len(report.changes),
            "breaking_for_agents": report.breaking_for("agent"),
            "breaking_for_clients": report.breaking_for("client"),
        },
        "changes": [
            {
                "kind": c.kind,
                "subject": c.subject,
                "detail": c.detail,
                "breaking": {"agent": "agent" in c.breaks, "client": "client" in c.breaks},
            }
            for c in report.changes
        ],
    }


def to_markdown(report: Report) -> str:
    env = templating.template_environment(TEMPLATES)
    methods = [c for c in report.changes if c.kind.startswith("method-")]
    rules = [c for c in report.changes if c.kind.startswith("rule-")]
    types = [c for c in report.changes if c not in methods and c not in rules]
    return env.get_template("report.md.jinja").render(
        report=report,
        sections=(("Methods", methods), ("Types", types), ("Behaviour rules", rules)),
    )
