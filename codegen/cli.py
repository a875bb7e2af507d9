"""Command line: `acp-codegen generate | check | update-schema --version X | scaffold ROLE |
diff OLD NEW`.

Exit status: 0 success, 1 stale output or a failed step, 2 schema problems (each printed with its
JSON pointer; nothing is written). `diff`: 0 no breaking change, 1 breaking changes, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from codegen import drift, pipeline, schema_diff
from codegen.problems import GenerationError, SchemaProblems
from codegen.schema_lock import update_schema
from codegen.targets.python.scaffold import render_scaffold, write_scaffold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="acp-codegen", description=__doc__)
    parser.add_argument(
        "--root", type=Path, default=pipeline.ROOT, help="project root (schema/, generated/)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="regenerate generated/ from the pinned schemas")
    gen.add_argument("--force", action="store_true", help="regenerate even when nothing changed")
    commands.add_parser("check", help="fail when generated/ differs from a fresh generation")
    update = commands.add_parser("update-schema", help="pin the schemas of another SDK version")
    update.add_argument("--version", required=True, help="@agentclientprotocol/sdk version")
    scaffold = commands.add_parser("scaffold", help="write a runnable starter agent or client")
    scaffold.add_argument("role", choices=("agent", "client"))
    scaffold.add_argument("--out", type=Path, required=True, help="the file to write")
    scaffold.add_argument("--unstable", action="store_true", help="use the unstable package")
    scaffold.add_argument("--force", action="store_true", help="overwrite an existing file")
    compare = commands.add_parser(
        "diff", help="the changes between two schemas (files or versions), breaking or not"
    )
    compare.add_argument("old", help="a schema file or an @agentclientprotocol/sdk version")
    compare.add_argument("new", help="a schema file or an @agentclientprotocol/sdk version")
    compare.add_argument(
        "--edition", default="v1", help="the file of a version: v1 (default), v1/unstable, v2, …"
    )
    compare.add_argument("--json", action="store_true", help="JSON instead of Markdown")
    args = parser.parse_args(argv)
    if args.command == "diff":
        return _diff(args.old, args.new, args.edition, as_json=args.json)

    try:
        if args.command == "generate":
            started = time.perf_counter()
            outcome = pipeline.generate(args.root, force=args.force)
            elapsed = time.perf_counter() - started
            state = "regenerated" if outcome.changed else "up to date, nothing to do"
            print(f"acp-codegen: {outcome.out_root} {state} ({elapsed:.2f} s)")
        elif args.command == "check":
            report = drift.stale_report(args.root)
            if report is not None:
                print(report, file=sys.stderr)
                return 1
            print("acp-codegen: generated/ matches a fresh generation")
        elif args.command == "scaffold":
            spec = pipeline.load_specification(args.root)
            source = render_scaffold(spec, args.role, unstable=args.unstable)
            write_scaffold(source, args.out, force=args.force)
            print(f"acp-codegen: wrote a starter {args.role} to {args.out}")
        else:
            lock = update_schema(args.root, args.version)
            print(f"acp-codegen: pinned {lock.origin}; run `make generate` next")
    except SchemaProblems as exc:
        print(f"acp-codegen: {exc}", file=sys.stderr)
        return 2
    except GenerationError as exc:
        print(f"acp-codegen: {exc}", file=sys.stderr)
        return 1
    return 0


def _diff(old: str, new: str, edition: str, *, as_json: bool) -> int:
    try:
        report = schema_diff.diff(old, new, edition)
    except (SchemaProblems, GenerationError, ValueError) as exc:
        print(f"acp-codegen: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(schema_diff.to_json(report), indent=2))
    else:
        print(schema_diff.to_markdown(report), end="")
    return 1 if report.breaking else 0


if __name__ == "__main__":
    sys.exit(main())
