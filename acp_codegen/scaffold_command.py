"""`acp-codegen scaffold agent|client` (the CLI layer of the starters): a runnable starter alone
(`--out FILE`) or in a project folder that builds (`--project DIR`).

A starter is written from the render cache when an earlier run rendered it from the same inputs
(`cache`): the schemas are then not even loaded, nor the generator's heavy modules imported. The
command line a project's headers name is the command as it was run, in one canonical order,
`--force` only when it was given (`command_line`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acp_codegen import cache, resources
from acp_codegen.exit_status import OK
from acp_codegen.problems import GenerationError
from acp_codegen.progress import Progress, reporting
from acp_codegen.targets import TARGETS, write_scaffold

DESCRIPTION = (
    "Write a runnable starter agent or client: the file alone (--out FILE), or in a project "
    "folder (--project DIR) whose README.md has the commands that build it (TypeScript: npm "
    "install, npm run build; Go: go build; Python: a venv and pip install)."
)


def define_scaffold(command: argparse.ArgumentParser) -> None:
    command.description = DESCRIPTION
    command.add_argument("role", choices=("agent", "client"))
    command.add_argument("--out", type=Path, help="the file to write")
    command.add_argument(
        "--project",
        type=Path,
        metavar="DIR",
        help="the folder to write a project into: the starter and what builds it",
    )
    command.add_argument("--unstable", action="store_true", help="use the unstable schema")
    command.add_argument("--module", help="Go --project: go.mod's module path (the folder's name)")
    command.add_argument(
        "--lang", choices=TARGETS, default="python", help="the starter's language (python)"
    )
    command.add_argument(
        "--protocol",
        choices=("v1", "v2"),
        default="v1",
        help="the ACP edition the starter speaks (v1; v2 follows v2's prompt lifecycle)",
    )
    command.add_argument(
        "--force",
        action="store_true",
        help="overwrite an existing file (--out), or write into a folder that is not empty "
        "(--project: the files it writes are overwritten, others kept)",
    )
    command.set_defaults(run=scaffold)


def scaffold(args: argparse.Namespace) -> int:
    if (args.out is None) == (args.project is None):
        raise GenerationError(
            "scaffold takes one of --out FILE (the starter alone) and --project DIR (the starter "
            "in a project that builds)"
        )
    if args.module is not None and (args.lang != "go" or args.project is None):
        raise GenerationError("--module is go.mod's module path: it takes --lang go --project DIR")
    what = f"a starter {args.protocol} {args.lang} {args.role}"
    if args.out is not None:
        with reporting(Progress.of(sys.stderr, quiet=args.quiet, forced=args.progress)):
            source = starter(args)
        write_scaffold(source, args.out, force=args.force)
        print(f"acp-codegen: wrote {what} to {args.out}")
        return OK
    return _project(args, what)


def starter(args: argparse.Namespace) -> str:
    """The starter's source: from the render cache, else rendered (and stored there)."""
    try:
        key: str | None = cache.inputs(args.root).render_key
    except (OSError, GenerationError):  # loading the schemas names what is wrong
        key = None
    channel = "unstable" if args.unstable else "stable"
    name = f"starter-{args.lang}-{args.role}-{args.protocol}-{channel}"
    source = cache.load(key, name) if key is not None else None
    if isinstance(source, str):
        return source
    from acp_codegen import pipeline, progress
    from acp_codegen.targets import load_scaffold

    progress.expect(1)
    spec = pipeline.specification(args.root)
    progress.step(f"rendering the {args.protocol} {args.lang} {args.role}")
    rendered = load_scaffold(args.lang)(
        spec, args.role, unstable=args.unstable, protocol=args.protocol
    )
    if key is not None:
        cache.store(key, name, rendered)
    return str(rendered)


def _project(args: argparse.Namespace, what: str) -> int:
    from acp_codegen import pipeline
    from acp_codegen.targets import project

    project.check_folder(args.project, force=args.force)  # before the schemas load
    with reporting(Progress.of(sys.stderr, quiet=args.quiet, forced=args.progress)):
        source = starter(args)
        spec = pipeline.specification(args.root)
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


def command_line(args: argparse.Namespace) -> str:
    """`acp-codegen [--root R] scaffold ROLE [--lang L] [--protocol P] [--unstable] [--module M]
    --project DIR [--force]`, as `args` says."""
    words = ["acp-codegen"]
    if Path(args.root).resolve() != Path(resources.DATA_ROOT).resolve():
        words += ["--root", Path(args.root).as_posix()]
    words += ["scaffold", args.role]
    if args.lang != "python":
        words += ["--lang", args.lang]
    if args.protocol != "v1":
        words += ["--protocol", args.protocol]
    if args.unstable:
        words.append("--unstable")
    if getattr(args, "module", None) is not None:
        words += ["--module", args.module]
    words += ["--project", args.project.as_posix()]
    return " ".join(words + ["--force"] * args.force)
