"""`acp-codegen generate` and `acp-codegen check` (the CLI layer of the pipeline): write the
generated code, or say how a copy of it differs from a fresh generation. Both report their steps
as progress (`progress`) and write from the render cache when an earlier run rendered the same
inputs (`cache`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from acp_codegen import fingerprint, resources
from acp_codegen.exit_status import OK, STALE
from acp_codegen.problems import GenerationError
from acp_codegen.progress import Progress, reporting


def define_generate(command: argparse.ArgumentParser) -> None:
    command.description = generate.__doc__
    output_options(command)
    command.add_argument("--force", action="store_true", help="regenerate even if current")
    command.add_argument(
        "--no-cache",
        dest="use_cache",
        action="store_false",
        help="render afresh instead of from the render cache (which is then refreshed)",
    )
    command.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 2, nothing written) on a review finding: a behaviour rule resting on "
        "schema text that was reworded or removed (docs/schemas.md)",
    )
    command.set_defaults(run=generate)


def define_check(command: argparse.ArgumentParser) -> None:
    output_options(command)
    command.set_defaults(run=check)


def output_options(command: argparse.ArgumentParser) -> None:
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


def generate(args: argparse.Namespace) -> int:
    """Write the generated code: in a source checkout, every target into generated/ (a no-op
    when nothing changed); with --out DIR --package NAME, the Python package as DIR/NAME. A
    failed run leaves the previous output as it was."""
    from acp_codegen import pipeline

    started = time.perf_counter()
    with reporting(command_progress(args)):
        if args.package is not None:
            outcome = pipeline.generate_package(
                args.root,
                _out(args),
                args.package,
                _command("generate", args),
                strict=args.strict,
                use_cache=args.use_cache,
            )
        else:
            outcome = pipeline.generate(
                args.root,
                _generated(args),
                force=args.force,
                strict=args.strict,
                use_cache=args.use_cache,
            )
    state = "written" if args.package is not None else None
    state = state or ("regenerated" if outcome.changed else "up to date, nothing to do")
    for line in outcome.review:
        print(f"acp-codegen: review: {line}", file=sys.stderr)
    print(f"acp-codegen: {outcome.out_root} {state} ({time.perf_counter() - started:.2f} s)")
    return OK


def check(args: argparse.Namespace) -> int:
    """A tree the render cache has for these inputs is compared by its hashes, nothing rendered
    (nor the generator's heavy modules imported); otherwise a fresh generation is rendered and
    compared file by file."""
    if args.package is None and fingerprint.matches_cached(args.root, _generated(args)):
        print("acp-codegen: generated/ matches a fresh generation")
        return OK
    from acp_codegen import drift

    with reporting(command_progress(args)):
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


def command_progress(args: argparse.Namespace) -> Progress:
    """The progress the top-level options ask for (--quiet, --progress), on stderr."""
    return Progress.of(sys.stderr, quiet=args.quiet, forced=args.progress)


def _out(args: argparse.Namespace) -> Path:
    if args.out is None:
        raise GenerationError(f"{args.command} --package needs --out DIR, the folder to write into")
    return Path(args.out)


def _generated(args: argparse.Namespace) -> Path:
    """Where the whole generated tree goes: --out, or generated/ of a source checkout."""
    if args.out is not None:
        return Path(args.out)
    if resources.INSTALLED and Path(args.root) == resources.DATA_ROOT:
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
