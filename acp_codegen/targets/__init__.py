"""One package per language target, each exposing `generate(spec, out_dir, options)` and, in its
`scaffold` module, `render_scaffold(spec, role, *, unstable)`; see `TARGETS`.

Targets are found, not listed: every subpackage of this package whose `__init__.py` defines or
imports `generate` is one (the shared kit, `kit/`, is not), so adding a language
(`acp-codegen new-target NAME`) touches no file of another."""

from __future__ import annotations

import ast
import importlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from acp_codegen import __version__
from acp_codegen.ir import Specification
from acp_codegen.problems import GenerationError

BUILT_IN = ("python", "typescript", "go")
"""The first targets, in the order they render (and are fingerprinted) in: others come after."""
SHARED = frozenset({"kit"})
"""Subpackages that are no target: what every target shares."""


HERE = Path(__file__).resolve().parent


def discover_targets(folder: Path = HERE) -> tuple[str, ...]:
    """The targets under `folder`: the built-in ones in their order, then the others sorted."""
    found = {
        entry.name
        for entry in folder.iterdir()
        if entry.name not in SHARED
        and entry.name.isidentifier()
        and (entry / "__init__.py").is_file()
        and _exposes_generate(entry / "__init__.py")
    }
    return tuple(name for name in BUILT_IN if name in found) + tuple(sorted(found - set(BUILT_IN)))


def _exposes_generate(init: Path) -> bool:
    """Whether a package's `__init__.py` defines or imports a top-level `generate` (read, not
    imported: a target imports this module)."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "generate":
            return True
        if isinstance(node, ast.ImportFrom | ast.Import) and any(
            (alias.asname or alias.name) == "generate" for alias in node.names
        ):
            return True
    return False


TARGETS = discover_targets()
"""Every target, in the order the pipeline renders them: python, typescript, go, then any other
(sorted)."""


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


def write_scaffold(source: str, out: Path, *, force: bool) -> None:
    """Write a starter's `source` to `out` atomically; an existing file is kept unless `force`."""
    if out.exists() and not force:
        raise GenerationError(f"{out} exists; pass --force to overwrite it")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=out.parent, delete=False, suffix=".tmp") as file:
        file.write(source)
    os.replace(file.name, out)


def package_version(spec: Specification) -> str:
    """Every target's package version: the schema release, then the generator's version as a
    local label (`2.4.0+codegen.0.2.0`), so `acp-protocol-sdk==2.4.0` matches any generator
    version of that schema (docs/install.md, versioning)."""
    return f"{spec.version}+codegen.{__version__}"
