"""The `acp-codegen` command line: parse, run one command, print one line per outcome.

Every failure is one line on stderr naming the file or the command that failed (a list of schema
problems adds one line per problem), never a traceback. Exit statuses are documented in `EPILOG`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from acp_codegen import __version__, changelog, drift, new_target, pipeline, resources, schema_diff
from acp_codegen.problems import GenerationError, MissingTool, SchemaProblems
from acp_codegen.scaffold_command import command_line
from acp_codegen.schema_crate import update_schema_from_crate
from acp_codegen.schema_lock import update_schema
from acp_codegen.targets import TARGETS, load_scaffold, project, write_scaffold

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

OK, STALE, BAD_INPUT, MISSING_TOOL = 0, 1, 2, 3


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
        return 130


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
        default=pipeline.ROOT,
        help="the project whose schema/ to read (default: the pinned schemas shipped with "
        "acp-codegen, or this checkout's)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    generate = commands.add_parser(
        "generate", help="write the generated code", description=_generate.__doc__
    )
    _output_options(generate)
    generate.add_argument("--force", action="store_true", help="regenerate even if current")
    generate.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 2, nothing written) on a review finding: a behaviour rule resting on "
        "schema text that was reworded or removed (docs/schemas.md)",
    )
    generate.set_defaults(run=_generate)

    check = commands.add_parser(
        "check", help="fail when generated code differs from a fresh generation"
    )
    _output_options(check)
    check.set_defaults(run=_check)

    scaffold = commands.add_parser(
        "scaffold",
        help="write a runnable starter agent or client, alone or in a project that builds",
        description="Write a runnable starter agent or client: the file alone (--out FILE), or "
        "in a project folder (--project DIR) whose README.md has the commands that build it "
        "(TypeScript: npm install, npm run build; Go: go build; Python: a venv and pip install).",
    )
    scaffold.add_argument("role", choices=("agent", "client"))
    scaffold.add_argument("--out", type=Path, help="the file to write")
    scaffold.add_argument(
        "--project",
        type=Path,
        metavar="DIR",
        help="the folder to write a project into: the starter and what builds it",
    )
    scaffold.add_argument("--unstable", action="store_true", help="use the unstable schema")
    scaffold.add_argument("--module", help="Go --project: go.mod's module path (the folder's name)")
    scaffold.add_argument(
        "--lang", choices=TARGETS, default="python", help="the starter's language (python)"
    )
    scaffold.add_argument(
        "--protocol",
        choices=("v1", "v2"),
        default="v1",
        help="the ACP edition the starter speaks (v1; v2 follows v2's prompt lifecycle)",
    )
    scaffold.add_argument(
        "--force",
        action="store_true",
        help="overwrite an existing file (--out), or write into a folder that is not empty "
        "(--project: the files it writes are overwritten, others kept)",
    )
    scaffold.set_defaults(run=_scaffold)

    compare = commands.add_parser(
        "diff", help="the changes between two schemas and whom they break (exit 1: breaking)"
    )
    compare.add_argument("old", help=schema_diff.INPUT_HELP)
    compare.add_argument("new", help=schema_diff.INPUT_HELP)
    compare.add_argument(
        "--edition", default="v1", help="which file of a version: v1 (default), v1/unstable, v2…"
    )
    compare.add_argument("--json", action="store_true", help="JSON instead of Markdown")
    compare.set_defaults(run=_diff)

    update = commands.add_parser(
        "update-schema",
        help="pin the schemas of another release (npm package or Rust crate)",
        description="Pin every edition's schema of one upstream release in schema/, with "
        "schema/lock.json (docs/schemas.md): the files npm's @agentclientprotocol/sdk ships "
        "(--version, needs npm), or the files built from crates.io's "
        "agent-client-protocol-schema by tools/crate-schema (--crate, needs cargo).",
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

    notes = commands.add_parser(
        "release-notes",
        help="print one version's section of the changelog (exit 2: no such version)",
        description=_release_notes.__doc__,
    )
    notes.add_argument(
        "version",
        nargs="?",
        default=__version__,
        metavar="VERSION",
        help="a version such as 0.2.0, or Unreleased (default: this one, %(default)s)",
    )
    notes.set_defaults(run=_release_notes)

    skeleton = commands.add_parser(
        "new-target",
        help="write the skeleton of a new language target (docs/new-language.md)",
        description=_new_target.__doc__,
    )
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
    return parser


def _output_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--out",
        type=Path,
        help="the folder the package goes into (default: generated/ of a source checkout)",
    )
    command.add_argument(
        "--package",
        help="the import name to write the Python package under, such as myapp._acp "
        "(with --out; imports inside it are relative)",
    )


def _generate(args: argparse.Namespace) -> int:
    """Write the generated code: in a source checkout, every target into generated/ (a no-op
    when nothing changed); with --out DIR --package NAME, the Python package as DIR/NAME. A
    failed run leaves the previous output as it was."""
    started = time.perf_counter()
    if args.package is not None:
        outcome = pipeline.generate_package(
            args.root, _out(args), args.package, _command("generate", args), strict=args.strict
        )
        state = "written"
    else:
        outcome = pipeline.generate(
            args.root, _generated(args), force=args.force, strict=args.strict
        )
        state = "regenerated" if outcome.changed else "up to date, nothing to do"
    for line in outcome.review:
        print(f"acp-codegen: review: {line}", file=sys.stderr)
    print(f"acp-codegen: {outcome.out_root} {state} ({time.perf_counter() - started:.2f} s)")
    return OK


def _check(args: argparse.Namespace) -> int:
    if args.package is not None:
        report = drift.stale_package_report(
            args.root, _out(args), args.package, _command("generate", args)
        )
        label = str(_out(args).joinpath(*args.package.split(".")))
    else:
        report = drift.stale_report(args.root, _generated(args))
        label = "generated/"
    if report is not None:
        print(report, file=sys.stderr)
        return STALE
    print(f"acp-codegen: {label} matches a fresh generation")
    return OK


def _scaffold(args: argparse.Namespace) -> int:
    if (args.out is None) == (args.project is None):
        raise GenerationError(
            "scaffold takes one of --out FILE (the starter alone) and --project DIR (the starter "
            "in a project that builds)"
        )
    if args.module is not None and (args.lang != "go" or args.project is None):
        raise GenerationError("--module is go.mod's module path: it takes --lang go --project DIR")
    if args.project is not None:
        project.check_folder(args.project, force=args.force)  # before the schemas load
    spec = pipeline.load_specification(args.root)
    source = load_scaffold(args.lang)(
        spec, args.role, unstable=args.unstable, protocol=args.protocol
    )
    what = f"a starter {args.protocol} {args.lang} {args.role}"
    if args.out is not None:
        write_scaffold(source, args.out, force=args.force)
        print(f"acp-codegen: wrote {what} to {args.out}")
        return OK
    request = project.Request(
        role=args.role,
        protocol=args.protocol,
        unstable=args.unstable,
        folder=args.project,
        root=args.root,
        starter=source,
        command=command_line(args),
        module=args.module,
    )
    content = project.load_project(args.lang)(spec, request)
    project.write_project(content, args.project, force=args.force)
    readme = args.project / "README.md"
    print(f"acp-codegen: wrote {what} project to {args.project}; {readme} says how to build it")
    for note in content.notes:  # a name it had to change (a Go module path)
        print(f"acp-codegen: {note}", file=sys.stderr)
    return OK


def _diff(args: argparse.Namespace) -> int:
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
        lock = update_schema_from_crate(args.root, args.crate)
    else:
        lock = update_schema(args.root, args.version)
    print(f"acp-codegen: pinned {lock.origin}; run `make generate` next")
    return OK


def _release_notes(args: argparse.Namespace) -> int:
    """Print the section of one version in acp-codegen's changelog, CHANGELOG.md (Keep a
    Changelog: Added, Changed, Deprecated, Removed, Fixed, Security; a change that asks
    something of you starts with **Breaking** and says how to migrate)."""
    print(changelog.read().release(args.version).text, end="")
    return OK


def _new_target(args: argparse.Namespace) -> int:
    """Write the skeleton of a new language target NAME into a source checkout: its package
    (acp_codegen/targets/NAME/: the entry point on the target kit, the starter, the test hooks),
    its templates (templates/NAME/: one per output-file kind, each walking the IR and writing
    only comments) and its runtime folder (one empty file per row of templates/runtime_map.json).
    `make generate` then renders it into generated/NAME/, and `python -m
    acp_codegen.targets.NAME.hooks conformance agent` reports what it still lacks."""
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


def _out(args: argparse.Namespace) -> Path:
    if args.out is None:
        raise GenerationError(f"{args.command} --package needs --out DIR, the folder to write into")
    return Path(args.out)


def _generated(args: argparse.Namespace) -> Path:
    """Where the whole generated tree goes: --out, or generated/ of a source checkout."""
    if args.out is not None:
        return Path(args.out)
    if resources.INSTALLED and args.root == pipeline.ROOT:
        raise GenerationError(
            f"{args.command} outside a source checkout needs --out DIR --package NAME "
            "(the folder and the import name to write the Python package under)"
        )
    return Path(args.root) / "generated"


def _command(name: str, args: argparse.Namespace) -> str:
    """The command line that regenerates a vendored package, for its files' headers (the same
    wherever it is run from: the folder is named by what it holds)."""
    top = args.package.split(".")[0]
    return " ".join(
        ["acp-codegen", name, "--out", f"<the folder of {top}/>", "--package", args.package]
    )


def _fail(message: str) -> None:
    print(f"acp-codegen: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
