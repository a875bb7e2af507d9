"""`acp-codegen diff OLD NEW`: what changed between two ACP schemas, and whom it breaks.

OLD and NEW are schema files or published `@agentclientprotocol/sdk` versions (fetched with
`npm pack`); `--edition` picks the file of a version (`v1`, `v1/unstable`, `v2`, …). Both are
validated and lowered to the typed IR, and compared there (`changes.compare`), behaviour rules
included (`rules.rule_changes`). The report is
Markdown (`templates/diff/report.md.jinja`) or JSON (`to_json`, shape in docs/diff.md).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_codegen import ir, resources, templating
from acp_codegen.loader import load_schema
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.rules import RULES
from acp_codegen.problems import GenerationError, SchemaProblems
from acp_codegen.schema_diff.changes import Change, compare
from acp_codegen.schema_diff.rules import rule_changes
from acp_codegen.schema_lock import LAYOUTS, PACKAGE, unpack
from acp_codegen.validation import validate_schema

TEMPLATES = resources.TEMPLATES / "diff"
VERSION = re.compile(r"^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$")


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


def diff(old: str, new: str, edition: str = "v1") -> Report:
    """Compare two schemas (files or versions); raises `SchemaProblems` or `GenerationError`."""
    protocol, _, channel_name = edition.partition("/")
    channel = ir.Stability(channel_name or "stable")
    with tempfile.TemporaryDirectory(prefix="acp-diff-") as tmp:
        before, old_label = _load(old, protocol, channel, Path(tmp) / "old")
        after, new_label = _load(new, protocol, channel, Path(tmp) / "new")
    changes = compare(before, after) + tuple(rule_changes(before, after))
    return Report(old_label, new_label, edition, changes)


def _load(arg: str, protocol: str, channel: ir.Stability, tmp: Path) -> tuple[ir.Edition, str]:
    path = Path(arg)
    if path.is_file():
        label = str(path)
    elif VERSION.match(arg):
        tmp.mkdir(parents=True)
        package = unpack(arg, tmp)
        wanted = [p for p, proto, chan in LAYOUTS if proto == protocol and chan is channel]
        found = next((package / p for p in wanted if (package / p).is_file()), None)
        if found is None:
            raise GenerationError(
                f"{PACKAGE}@{arg} ships no {channel.value} {protocol} schema (try --edition "
                f"{protocol}/{'unstable' if channel is ir.Stability.STABLE else 'stable'})"
            )
        path, label = found, f"{PACKAGE}@{arg} {found.relative_to(package).as_posix()}"
    else:
        raise GenerationError(f"{arg!r} is neither a schema file nor a version like 2.4.0")
    doc = load_schema(path)
    problems = validate_schema(doc, path.name)
    if problems:
        raise SchemaProblems(problems)
    edition = lower_edition(
        doc, protocol=protocol, channel=channel, source=path.name, sha256="", rules=RULES
    )
    return edition, label


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
