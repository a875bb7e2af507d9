"""Publishing the field (layer: report): docs/conformance/field.json (one entry per row, kept
across runs so that one row can be rerun alone), a page per row with failures
(docs/conformance/field/<key>.md: for each failed case its id, level, reason, the schema text and
where it is said, and the frames exchanged), and the table in docs/conformance.md between the
markers `<!-- field:start -->` and `<!-- field:end -->`.

Frames are the programs' own output: they go into fenced blocks longer than any run of
backticks they hold, and table cells have `|` escaped and no line breaks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .builds import ROOT
from .rows import ROWS

DOCS = ROOT / "docs"
DOC = DOCS / "conformance.md"
RESULTS = ROOT / "docs" / "conformance" / "field.json"
DETAILS = ROOT / "docs" / "conformance" / "field"
START, END = "<!-- field:start -->", "<!-- field:end -->"
PAGE_FRAMES = 40
"""Frames shown per failure on a details page (the last ones; `--trace` keeps them all)."""
FRAME_CHARS = 600
"""Characters shown of one frame (a frame can be megabytes)."""
HEADER = (
    "| implementation | version | edition | MUST pass/fail/skip | SHOULD pass/fail/skip "
    "| informative pass/fail/skip | seconds | failures | rerun |"
)


def load(path: Path = RESULTS) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return {entry["key"]: entry for entry in entries}


def save(results: dict[str, dict[str, Any]], path: Path = RESULTS) -> None:
    """The rows in the table's order (rows no longer in `ROWS` are dropped)."""
    ordered = [results[row.key] for row in ROWS if row.key in results]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def fenced(text: str) -> str:
    """`text` in a fenced block no run of backticks inside it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def details_name(key: str) -> str:
    return f"conformance/field/{key}.md"


def table_row(result: dict[str, Any]) -> str:
    name = f"{result['implementation']} <a id=\"field-{result['key']}\"></a>"
    rerun = f"`{result['rerun']}`"
    head = [name, result["version"], result["edition"]]
    if "error" in result:
        cells = [*map(cell, head), cell(result["error"]), "", "", "", "", rerun]
        return "| " + " | ".join(cells) + " |"
    counts = [
        "/".join(str(result["counts"][level][o]) for o in ("pass", "fail", "skip"))
        for level in ("MUST", "SHOULD", "informative")
    ]
    failed = len(result["failed"])
    failures = f"[{failed}]({details_name(result['key'])})" if failed else "none"
    cells = [*map(cell, head), *counts, f"{result['seconds']:g}", failures, rerun]
    return "| " + " | ".join(cells) + " |"


def section(results: dict[str, dict[str, Any]]) -> str:
    """What goes between the markers: the table, then what each row runs."""
    lines = [HEADER, "| " + " | ".join(["---"] * 9) + " |"]
    lines += [table_row(results[row.key]) for row in ROWS if row.key in results]
    missing = [row.key for row in ROWS if row.key not in results]
    lines += ["", "What each row runs, and when it was measured:", ""]
    for row in ROWS:
        result = results.get(row.key)
        if result is None:
            continue
        command = f"`{cell(result['command'])}`" if "command" in result else "(not built)"
        options = f", suite options `{result['options']}`" if "options" in result else ""
        lines.append(
            f"- `{row.key}`: {row.program}; {command}{options}; {result['date']}"
            f" ({result.get('cases', 0)} cases)"
        )
    if missing:
        lines += ["", "Not measured yet: " + ", ".join(f"`{key}`" for key in missing) + "."]
    return "\n".join(lines)


def write_section(text: str, doc: Path = DOC) -> None:
    page = doc.read_text(encoding="utf-8")
    begin, end = page.index(START) + len(START), page.index(END)
    doc.write_text(page[:begin] + "\n" + text + "\n" + page[end:], encoding="utf-8")


def read_section(doc: Path = DOC) -> list[dict[str, str]]:
    """The table's rows as the page shows them: each cell by its header's name."""
    page = doc.read_text(encoding="utf-8")
    text = page[page.index(START) + len(START) : page.index(END)]
    names = [n.strip() for n in HEADER.strip("|").split(" | ")]
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and line != HEADER and not line.startswith("| ---"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            rows.append(dict(zip(names, cells, strict=True)))
    return rows


def frame_text(frame: dict[str, Any]) -> str:
    arrow = "→" if frame["dir"] == "sent" else "←"
    body = json.dumps(frame["json"], ensure_ascii=False) if "json" in frame else frame["raw"]
    if len(body) > FRAME_CHARS:
        body = body[:FRAME_CHARS] + f"… ({len(body) - FRAME_CHARS} more characters)"
    return f"{frame['t']:8.3f} {arrow} {body}"


def details_page(result: dict[str, Any], failures: Sequence[dict[str, Any]]) -> str:
    lines = [
        f"# {result['implementation']} {result['version']}: failed conformance cases",
        "",
        f"ACP {result['edition']}, {result['program']}; `{result['command']}`, measured on "
        f"{result['date']} with suite options `{result['options']}`. Rerun: "
        f"`{result['rerun']}` (docs/conformance.md, \"The field\"; the run's traces and HTML "
        f"page are in .build/conformance-field/runs/{result['key']}/).",
        "",
        f"{len(failures)} of {result['cases']} cases failed. Frames: `→` sent by the suite, `←`"
        " received, seconds since the program started.",
    ]
    for trace in failures:
        frames = trace["frames"]
        shown = frames[-PAGE_FRAMES:]
        count = f"the last {len(shown)} of {len(frames)}" if len(shown) < len(frames) else "all"
        lines += [
            "",
            f"## `{trace['caseId']}` ({trace['level']})",
            "",
            f"{cell(trace['title'])}.",
            "",
            "Why it failed:",
            "",
            fenced(trace["reason"]),
            "",
            f"> {cell(trace['quote']['text'])}",
            "",
            f"(`{trace['quote']['source']}`)",
            "",
            f"Frames ({count}):",
            "",
            fenced("\n".join(frame_text(f) for f in shown)),
        ]
        if trace["stderr"].strip():
            lines += ["", "The program's stderr (its end):", "", fenced(trace["stderr"].strip())]
    return "\n".join(lines) + "\n"


def write_details(result: dict[str, Any], failures: Sequence[dict[str, Any]]) -> None:
    path = DOCS / details_name(result["key"])
    if failures:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(details_page(result, failures), encoding="utf-8")
    else:
        path.unlink(missing_ok=True)
