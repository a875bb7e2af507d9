"""`python -m tools.field_report [--check]` (layer: command line): rewrite docs/field.md's
generated parts (the table, and what each agent sends beyond the pinned schema) from
tests/field/recordings/results.json and the recordings it names. `make field` runs it after the
field's tests. With `--check`, write nothing and exit 1 when the page is not what the recordings
make (tests/field/test_field_report.py runs that check).

Exits 0 when the page is written (or, with --check, up to date), 1 when --check finds it stale,
2 when the page lacks its markers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .report import beyond, relative_link, table

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "field.md"
RESULTS = ROOT / "tests" / "field" / "recordings" / "results.json"
MARKERS = {
    "table": ("<!-- field-table:start -->", "<!-- field-table:end -->"),
    "beyond": ("<!-- field-beyond:start -->", "<!-- field-beyond:end -->"),
}


class MarkerError(Exception):
    """The page lacks a pair of the markers between which the report writes."""


def made(page_text: str, results: Path, page: Path) -> str:
    """`page_text` with its generated parts made from `results` and its recordings."""
    entries = json.loads(results.read_text(encoding="utf-8")) if results.exists() else []
    entries = sorted(entries, key=lambda e: e["test"])
    link = relative_link(results.parent, page)
    source = relative_link(results, page)
    total = sum(e["seconds"] for e in entries)
    header = (
        f"Made by `python -m tools.field_report` from [{results.name}]({source}):"
        f" {len(entries)} tests, {sum(1 for e in entries if e['recording'])} recordings,"
        f" {total:.0f} s of tests."
    )
    parts = {
        "table": header + "\n\n" + table(entries, link) + "\n",
        "beyond": beyond(entries, results.parent, link),
    }
    text = page_text
    for name, (start, end) in MARKERS.items():
        if start not in text or end not in text:
            raise MarkerError(f"{page}: no {start} … {end}")
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{start}\n{parts[name]}{end}{tail}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.field_report", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results.json to read")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page to rewrite")
    options = parser.parse_args(argv)
    page: Path = options.page
    current = page.read_text(encoding="utf-8")
    try:
        text = made(current, options.results, page)
    except MarkerError as error:
        print(f"field report: {error}", file=sys.stderr)
        return 2
    if options.check:
        if text != current:
            print(f"{page} is stale: run `python -m tools.field_report`", file=sys.stderr)
            return 1
        return 0
    if text != current:
        page.write_text(text, encoding="utf-8")
    print(f"field report: {page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
