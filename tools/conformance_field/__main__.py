"""`python -m tools.conformance_field [--row KEY]…` (layer: command line): build each row's
program, run the suite on it, and publish what it found (docs/conformance.md's field section,
docs/conformance/field.json, docs/conformance/field/<key>.md). `make conformance` runs every row;
`make conformance ROW=<key>` one (the other rows keep their last results). The rows of
`recorded.RECORDED` are run a second time, on the cases a recording can judge, behind `trace
record` (docs/conformance/recordings/; `--recorded` runs only that).

Exits 0 when every selected row ran (whatever it found: third parties' failures are the table's
content, not this tool's), 1 when a row could not be built or run, 2 for an unknown row.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import publish
from .recorded import RECORDED, record_row, summary
from .rows import BY_KEY, ROWS
from .run import run_row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make conformance", description=__doc__)
    parser.add_argument(
        "--row", action="append", default=[], metavar="KEY", help="rerun only these rows"
    )
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    parser.add_argument(
        "--recorded",
        action="store_true",
        help="only the recorded runs (docs/conformance/recordings/), the table as it is",
    )
    options = parser.parse_args(argv)
    if options.list:
        for row in ROWS:
            print(f"{row.key:18} {row.implementation} {row.version} ({row.protocol})")
        return 0
    keys = [k.strip() for value in options.row for k in value.split(",") if k.strip()]
    unknown = [key for key in keys if key not in BY_KEY]
    if unknown:
        print(f"make conformance: no row {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    results = publish.load()
    broken = 0
    for row in [BY_KEY[key] for key in keys] if keys else ROWS:
        if row.key in RECORDED:
            manifest = record_row(row)
            broken += "error" in manifest
            print(f"{row.key}: " + "\n".join(summary(manifest)), file=sys.stderr)
        if options.recorded:
            continue
        print(f"{row.key}: {row.implementation} {row.version} ({row.protocol})…", file=sys.stderr)
        ran = run_row(row)
        results[row.key] = ran.result
        if "error" in ran.result:
            broken += 1
            print(f"  {ran.result['error']}", file=sys.stderr)
        else:
            counts = ran.result["counts"]
            print(
                f"  {ran.result['cases']} cases in {ran.result['seconds']:g} s; failed: "
                f"MUST {counts['MUST']['fail']}, SHOULD {counts['SHOULD']['fail']}, "
                f"informative {counts['informative']['fail']}",
                file=sys.stderr,
            )
        publish.write_details(ran.result, ran.failures)
        publish.save(results)
        publish.write_section(publish.section(results))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
