"""Generator-tier fixtures: a throwaway project root and a way to render models from an inline
schema."""

from __future__ import annotations

import importlib
import itertools
import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acp_codegen.ir import Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.pipeline import ROOT
from acp_codegen.schema_lock import LockedFile, read_lock, sha256_of, write_lock
from acp_codegen.targets.python import render_models
from acp_codegen.targets.python.format import format_source

_counter = itertools.count()
PINNED = read_lock(ROOT).files
"""Every pinned schema file, whatever the release: pipeline tests use these, not a layout."""


def models_path(locked: LockedFile) -> str:
    """The generated models module of a pinned edition, relative to generated/."""
    edition = locked.protocol + ("" if locked.channel == "stable" else "/unstable")
    return f"python/acp_protocol/{edition}/models.py"


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    """A copy of this project's schema/ and generated/ (the generator reads its templates from
    its own install)."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copytree(ROOT / "schema", root / "schema")
    shutil.copytree(
        ROOT / "generated", root / "generated", ignore=shutil.ignore_patterns("__pycache__")
    )
    return root


def rewrite_schema(root: Path, relative: str, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit a pinned schema of `root` and re-lock it, so only validation can object."""
    path = root / relative
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc, indent=2))
    lock = read_lock(root)
    files = tuple(
        replace(f, sha256=sha256_of(root / f.path)) if f.path == relative else f for f in lock.files
    )
    write_lock(root, type(lock)(lock.package, lock.version, files))


@pytest.fixture
def models_from(tmp_path: Path) -> Callable[[dict[str, Any]], ModuleType]:
    """Render `$defs` through the Python target's model pipeline and import the result."""

    def render(defs: dict[str, Any]) -> ModuleType:
        doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
        edition = lower_edition(
            doc, protocol="v1", channel=Stability.STABLE, source="inline.json", sha256="0"
        )
        package = tmp_path / f"inline_models_{next(_counter)}"
        (package / "_models").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        for relative, text in render_models(
            edition, "# inline test schema", "acp_protocol.runtime"
        ).items():
            (package / relative).write_text(format_source(text))
        sys.path.insert(0, str(tmp_path))
        try:
            return importlib.import_module(f"{package.name}.models")
        finally:
            sys.path.remove(str(tmp_path))

    return render
