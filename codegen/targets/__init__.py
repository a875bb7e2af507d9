"""One module per language target, each exposing `generate(ir, out_dir)`; see `TARGETS`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import cast

from codegen.ir import Specification

TARGETS = ("python",)

Generate = Callable[[Specification, Path], None]


def load_target(name: str) -> Generate:
    """The `generate` entry point of `codegen.targets.<name>`."""
    if name not in TARGETS:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(TARGETS)}")
    module = importlib.import_module(f"codegen.targets.{name}")
    return cast(Generate, module.generate)
