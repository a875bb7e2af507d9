"""The excerpts docs/design.md shows side by side (layer: evidence): each cut from
datamodel-code-generator's output of this run or from our committed `generated/` tree, by an
anchor line, so the page shows real output and tests/docs/test_design_page.py can tell.

An excerpt is one or two runs of lines; between two runs the page shows `    …`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ELISION = "    …"


@dataclass(frozen=True)
class Cut:
    source: str
    """`theirs:<edition>` (this run's output), `kept` (the run keeping annotations), or a path
    under the checkout."""
    start: str
    """The first line: the first line that starts with this (after `after`, when given)."""
    lines: int
    after: str | None = None
    then: tuple[str, int] | None = None
    """A second run of lines: its first line's start and its length."""


CUTS = {
    "theirs_union_v2": Cut("theirs:v2", "SessionUpdate = TypeAliasType(", 7),
    "theirs_variant_v2": Cut("theirs:v2", "class SessionUpdate3(", 7),
    "ours_union_v2": Cut(
        "generated/python/acp_protocol/v2/_models/session_update.py",
        "SessionUpdate = TypeAliasType(",
        6,
        then=("        Annotated[UnknownSessionUpdate, Tag(UNKNOWN_VARIANT)],", 6),
    ),
    "theirs_tristate_v1": Cut(
        "theirs:v1", "    title: Annotated[", 6, after="class SessionInfoUpdate("
    ),
    "ours_tristate_ts_v1": Cut(
        "generated/typescript/src/v1/types.ts", "export interface SessionInfoUpdate {", 5
    ),
    "ours_tristate_go_v1": Cut("generated/go/v1/types.go", "type SessionInfoUpdate struct {", 6),
    "ours_method_table_v2": Cut(
        "generated/python/acp_protocol/v2/methods.py", "        SESSION_PROMPT: MethodSpec(", 10
    ),
    "kept_method_v2": Cut(
        "kept", "    model_config = ConfigDict(", 3, after="class PromptRequest("
    ),
    "kept_state_v2": Cut("kept", "class SessionUpdate7(", 11),
    "ours_state_v2": Cut(
        "generated/go/v2/state.go", "\t\t// /$defs/SessionUpdate/anyOf/8/x-state", 13
    ),
}


def cut(text: str, spec: Cut) -> str:
    lines = text.splitlines()
    begin = 0
    if spec.after is not None:
        begin = next(i for i, line in enumerate(lines) if line.startswith(spec.after))
    first = next(i for i in range(begin, len(lines)) if lines[i].startswith(spec.start))
    out = lines[first : first + spec.lines]
    if spec.then is not None:
        anchor, count = spec.then
        second = next(i for i in range(first, len(lines)) if lines[i].startswith(anchor))
        out += [ELISION, *lines[second : second + count]]
    return "\n".join(out) + "\n"


def collect(theirs: dict[str, str], kept: str) -> dict[str, dict[str, str]]:
    """Every excerpt: where it is from and its text."""
    found = {}
    for name, spec in CUTS.items():
        if spec.source.startswith("theirs:"):
            text = theirs[spec.source.removeprefix("theirs:")]
        elif spec.source == "kept":
            text = kept
        else:
            text = (ROOT / spec.source).read_text(encoding="utf-8")
        found[name] = {"from": spec.source, "text": cut(text, spec)}
    return found
