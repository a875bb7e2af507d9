"""The `acp-codegen` command line: parse, run one command, print one line per outcome.

Every failure is one line on stderr naming the file or the command that failed (a list of schema
problems adds one line per problem), never a traceback. Exit statuses are documented in `EPILOG`
(`exit_status`). A command's arguments are defined when it runs (`_Command`), so a command imports
only the modules it uses: a warm `scaffold` loads neither the schema validator nor the templates.
The commands that render live beside this module (`generate_command`, `scaffold_command`); the
others are here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acp_codegen import __version__, generate_command, resources, scaffold_command
from acp_codegen.exit_status import BAD_INPUT, INTERRUPTED, MISSING_TOOL, OK, STALE
from acp_codegen.problems import GenerationError, MissingTool, SchemaProblems

DESCRIPTION = """\
Generate typed SDK code for the Agent Client Protocol (ACP) from its JSON schemas.

The pinned schemas (schema/lock.json) are validated, lowered to a typed intermediate
representation, and rendered: in a source checkout into generated/ (`make generate`);
anywhere with --out DIR --package NAME, as a package to vendor into your project."""

EPILOG = """\
exit status:
  0  success (diff: no breaking change)
  1  generated code is stale (check), or diff found breaking changes
  2  bad schema or bad input (each problem is printed with its file and JSON pointer)
  3  a tool the command needs is missing (npm), or cargo (update-schema --crate, diff crate:V)

examples:
  acp-codegen generate --out src --package myapp._acp   vendor the package as myapp._acp
  acp-codegen check --out src --package myapp._acp      is that copy still current?
  acp-codegen scaffold agent --out my_agent.py         a runnable starter agent
  acp-codegen scaffold client --lang typescript --out client.ts   … or client, in TypeScript
  acp-codegen scaffold agent --protocol v2 --out agent.py   a starter that speaks ACP v2
  acp-codegen scaffold agent --lang go --project my-agent   … in a folder that builds (go build)
  acp-codegen diff npm:2.4.0 crate:1.20.0              what changed, and whom it breaks
  acp-codegen update-schema --version 2.4.0            pin another release (needs npm)
  acp-codegen update-schema --crate 1.20.0             … built from the Rust crate (needs cargo)
  acp-codegen release-notes Unreleased                 what changed since this version
  acp-codegen new-target rust                          the skeleton of a new language target"""

__all__ = ["BAD_INPUT", "EPILOG", "MISSING_TOOL", "OK", "STALE", "main"]


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args))
    except SchemaProblems as exc:
        _fail(str(exc))
        return BAD_INPUT
    except MissingTool as exc:
        _fail(str(exc))
        return MISSING_TOOL
    except GenerationError as exc:
        _fail(str(exc))
        return BAD_INPUT
    except BrokenPipeError:
        # The reader left (`acp-codegen diff … | head`): stop quietly, as `cat` would.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        _fail(f"{args.command}{where}: {exc.strerror or exc}")
        return BAD_INPUT
    except KeyboardInterrupt:
        _fail("interrupted")
        return INTERRUPTED


Define = Callable[[argparse.ArgumentParser], None]


class _Command(argparse.ArgumentParser):
    """One command's parser, whose arguments `define` adds when the command is parsed (its own
    `--help` included): the top-level help lists every command by its one-line help alone."""

    def __init__(self, *args: Any, define: Define | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._define = define

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._define is not None:
            define, self._define = self._define, None
            define(self)
        return super().parse_known_args(args, namespace)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-codegen",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"acp-codegen {__version__}")
    parser.add_argument(
        "--root",
        type=Path,
        default=resources.DATA_ROOT,
        help="the project whose schema/ to read (default: the pinned schemas shipped with "
        "acp-codegen, or this checkout's)",
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "-q", "--quiet", action="store_true", help="no progress line, even on a terminal"
    )
    shown.add_argument(
        "--progress",
        action="store_true",
        help="progress lines on stderr even when it is no terminal (a CI log); a terminal "
        "shows them anyway, for anything that takes over two seconds",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Command
    )
    for name, summary, define in (
        ("generate", "write the generated code", generate_command.define_generate),
        (
            "check",
            "fail when generated code differs from a fresh generation",
            generate_command.define_check,
        ),
        (
            "scaffold",
            "write a runnable starter agent or client, alone or in a project that builds",
            scaffold_command.define_scaffold,
        ),
        (
            "diff",
            "the changes between two schemas and whom they break (exit 1: breaking)",
            _define_diff,
        ),
        (
            "update-schema",
            "pin the schemas of another release (npm package or Rust crate)",
            _define_update_schema,
        ),
        (
            "release-notes",
            "print one version's section of the changelog (exit 2: no such version)",
            _define_release_notes,
        ),
        (
            "new-target",
            "write the skeleton of a new language target (docs/new-language.md)",
            _define_new_target,
        ),
    ):
        commands.add_parser(name, help=summary, define=define)
    return parser


def _define_diff(compare: argparse.ArgumentParser) -> None:
    from acp_codegen import schema_diff

    compare.add_argument("old", help=schema_diff.INPUT_HELP)
    compare.add_argument("new", help=schema_diff.INPUT_HELP)
    compare.add_argument(
        "--edition", default="v1", help="which file of a version: v1 (default), v1/unstable, v2…"
    )
    compare.add_argument("--json", action="store_true", help="JSON instead of Markdown")
    compare.set_defaults(run=_diff)


def _define_update_schema(update: argparse.ArgumentParser) -> None:
    update.description = (
        "Pin every edition's schema of one upstream release in schema/, with "
        "schema/lock.json (docs/schemas.md): the files npm's @agentclientprotocol/sdk ships "
        "(--version, needs npm), or the files built from crates.io's "
        "agent-client-protocol-schema by tools/crate-schema (--crate, needs cargo)."
    )
    source = update.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--version", help="an @agentclientprotocol/sdk release (npm), such as 2.4.0"
    )
    source.add_argument(
        "--crate",
        metavar="VERSION",
        help="an agent-client-protocol-schema release (crates.io), such as 1.20.0",
    )
    update.set_defaults(run=_update_schema)


def _define_release_notes(notes: argparse.ArgumentParser) -> None:
    notes.description = _release_notes.__doc__
    notes.add_argument(
        "version",
        nargs="?",
        default=__version__,
        metavar="VERSION",
        help="a version such as 0.2.0, or Unreleased (default: this one, %(default)s)",
    )
    notes.set_defaults(run=_release_notes)


def _define_new_target(skeleton: argparse.ArgumentParser) -> None:
    from acp_codegen import new_target

    skeleton.description = _new_target.__doc__
    skeleton.add_argument("name", metavar="NAME", help="the target's name: rust, kotlin, …")
    skeleton.add_argument(
        "--out",
        type=Path,
        metavar="ROOT",
        help="the source checkout to write into (default: this one)",
    )
    skeleton.add_argument("--ext", help="its files' ending (known languages: theirs; else NAME)")
    skeleton.add_argument("--comment", help="what starts a line comment (known languages: theirs)")
    skeleton.add_argument(
        "--file-case", choices=sorted(new_target.CASES), help="how files are named from a piece"
    )
    skeleton.add_argument(
        "--handler-case",
        choices=("snake", "camel", "pascal"),
        help="how a handler is named from a method",
    )
    skeleton.set_defaults(run=_new_target)


def _diff(args: argparse.Namespace) -> int:
    from acp_codegen import schema_diff

    try:
        report = schema_diff.diff(args.old, args.new, args.edition, root=args.root)
    except ValueError as exc:  # an --edition that names no edition
        raise GenerationError(f"diff: {exc}") from exc
    if args.json:
        print(json.dumps(schema_diff.to_json(report), indent=2))
    else:
        print(schema_diff.to_markdown(report), end="")
    return STALE if report.breaking else OK


def _update_schema(args: argparse.Namespace) -> int:
    if args.crate is not None:
        from acp_codegen.schema_crate import update_schema_from_crate

        lock = update_schema_from_crate(args.root, args.crate)
    else:
        from acp_codegen.schema_lock import update_schema

        lock = update_schema(args.root, args.version)
    print(f"acp-codegen: pinned {lock.origin}; run `make generate` next")
    return OK


def _release_notes(args: argparse.Namespace) -> int:
    """Print the section of one version in acp-codegen's changelog, CHANGELOG.md (Keep a
    Changelog: Added, Changed, Deprecated, Removed, Fixed, Security; a change that asks
    something of you starts with **Breaking** and says how to migrate)."""
    from acp_codegen import changelog

    print(changelog.read().release(args.version).text, end="")
    return OK


def _new_target(args: argparse.Namespace) -> int:
    """Write the skeleton of a new language target NAME into a source checkout: its package
    (acp_codegen/targets/NAME/: the entry point on the target kit, the starter, the test hooks),
    its templates (templates/NAME/: one per output-file kind, each walking the IR and writing
    only comments) and its runtime folder (one empty file per row of templates/runtime_map.json).
    `make generate` then renders it into generated/NAME/, and `python -m
    acp_codegen.targets.NAME.hooks conformance agent` reports what it still lacks."""
    from acp_codegen import new_target

    if args.out is None and resources.INSTALLED:
        raise GenerationError("new-target outside a source checkout needs --out ROOT")
    root = Path(args.out) if args.out is not None else resources.DATA_ROOT
    new_target.check_name(args.name, root)  # before the options that follow from the name
    language = new_target.language_of(
        args.name,
        extension=args.ext,
        comment=args.comment,
        file_case=args.file_case,
        handler_case=args.handler_case,
    )
    files = new_target.write_skeleton(args.name, language, root)
    runtime = sum(1 for path in files if "/runtime/" in path)
    print(
        f"acp-codegen: wrote the {args.name} target's skeleton into {root}: "
        f"acp_codegen/targets/{args.name}/ ({len(new_target.MODULES)} modules), "
        f"templates/{args.name}/ ({len(new_target.TEMPLATE_KINDS)} templates, "
        f"{runtime} runtime files)"
    )
    print(
        f"acp-codegen: next: `make generate` writes generated/{args.name}/; "
        f"`python -m acp_codegen.targets.{args.name}.hooks conformance agent` reports what it "
        "lacks; docs/new-language.md walks through the rest"
    )
    return OK


def _fail(message: str) -> None:
    print(f"acp-codegen: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
