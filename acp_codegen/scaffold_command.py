"""The command line a scaffolded project's headers name (the CLI layer of `scaffold --project`):
the command as it was run, in one canonical order, `--force` only when it was given."""

from __future__ import annotations

import argparse
from pathlib import Path

from acp_codegen import pipeline


def command_line(args: argparse.Namespace) -> str:
    """`acp-codegen [--root R] scaffold ROLE [--lang L] [--protocol P] [--unstable] [--module M]
    --project DIR [--force]`, as `args` says."""
    words = ["acp-codegen"]
    if Path(args.root).resolve() != Path(pipeline.ROOT).resolve():
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
