"""One package per language target, each exposing `generate(spec, out_dir, options)` and, in its
`scaffold` module, `render_scaffold(spec, role, *, unstable)`; see `TARGETS`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from acp_codegen.ir import Specification

TARGETS = ("python", "typescript")


@dataclass(frozen=True, slots=True)
class Options:
    """How a target writes its package."""

    package: str | None = None
    """The import name to write the package under (`myapp._acp`), for vendoring: only the package
    itself is written, at `out_dir/myapp/_acp/`. None: the target's own name, written as a
    distribution (the package and its project files)."""
    command: str = "make generate"
    """The command that regenerates the output, named in every generated file's header."""


Generate = Callable[[Specification, Path, Options], None]


def load_target(name: str) -> Generate:
    """The `generate` entry point of `acp_codegen.targets.<name>`."""
    if name not in TARGETS:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(TARGETS)}")
    module = importlib.import_module(f"acp_codegen.targets.{name}")
    return cast(Generate, module.generate)


Scaffold = Callable[..., str]


def load_scaffold(name: str) -> Scaffold:
    """`render_scaffold(spec, role, *, unstable)` of `acp_codegen.targets.<name>.scaffold`: the
    source of a runnable starter agent or client."""
    if name not in TARGETS:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(TARGETS)}")
    module = importlib.import_module(f"acp_codegen.targets.{name}.scaffold")
    return cast(Scaffold, module.render_scaffold)
