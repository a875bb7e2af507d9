"""`acp-codegen scaffold agent|client --lang L --project DIR`: the starter in a folder that builds
as it is, with the two commands that build it in its README.

Each target's `project` module has `render_project(spec, request) -> Project`: the folder's files
as text (the starter itself, exactly what `--out` writes, among them) and the generated packages
the folder carries (TypeScript: `acp-protocol-sdk/`, rendered by the target as `generate` would).
This module names the folder, finds the checkout's generated packages a project points at, and
writes the folder: nothing is touched until everything rendered, and a folder with files in it is
written only with `force` (which overwrites the files the command writes, and nothing else).
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import jinja2

from acp_codegen.ir import Specification
from acp_codegen.problems import GenerationError

SDK = "acp-protocol-sdk"
"""The generated package's name, in every target (npm package, Go module, Python distribution);
a project cannot take it."""


@dataclass(frozen=True, slots=True)
class Request:
    """What `scaffold --project` was asked for."""

    role: str
    """"agent" or "client"."""
    protocol: str
    unstable: bool
    folder: Path
    """The project folder, as given."""
    root: Path
    """The acp-codegen project whose schema/ was read and whose generated/ a project points at."""
    starter: str
    """The starter's source, as `scaffold --out` writes it."""
    module: str | None
    """`--module`: the Go module path go.mod declares (None: derived from the folder's name)."""
    command: str
    """The command that wrote the folder (`… --project DIR`, with `--force` when it was given),
    for the headers."""

    @property
    def name(self) -> str:
        """The project's name (npm package, Go module): the folder's, lower-cased, with each run of
        characters outside `a-z 0-9 . _ ~ -` turned into one `-`."""
        words = re.sub(r"[^a-z0-9._~-]+", "-", self.folder.resolve().name.lower())
        name = words.strip(".-_~") or "acp-starter"
        if name == SDK:
            raise GenerationError(
                f"--project {self.folder}: a project named {SDK} would stand in for the generated "
                "package it depends on; give the folder another name"
            )
        return name

    @property
    def again(self) -> str:
        """How the headers say to write the folder anew: the command needs `--force` once the
        folder has files, so a command run without it is told to add it."""
        forced = self.command.split()[-1:] == ["--force"]
        return "run it again" if forced else "run it again with --force"

    def context(self) -> dict[str, Any]:
        """What every project template is rendered with; a target adds its own names."""
        return {
            "command": self.command,
            "again": self.again,
            "name": self.name,
            "role": self.role,
            "protocol": self.protocol,
            "unstable": self.unstable,
        }

    def files(
        self, env: jinja2.Environment, templates: Mapping[str, str], starter: str, **names: Any
    ) -> dict[str, str]:
        """The project's files: each of `templates` (relative path → template name) rendered
        with `context()` and a target's own `names`, and the starter at the path `starter`."""
        context = {**self.context(), **names}
        files = {path: env.get_template(name).render(context) for path, name in templates.items()}
        files[starter] = self.starter
        return files

    def relative(self, path: Path) -> str:
        """`path` relative to the project folder, with `/` and a leading `./` or `../` (Go's
        `replace` and pip take only such a path for a folder): how the project points at it."""
        relative = Path(os.path.relpath(path.resolve(), self.folder.resolve())).as_posix()
        return relative if relative.split("/")[0] == ".." else f"./{relative}"

    def generated(self, target: str) -> Path:
        """The checkout's generated package of `target` (generated/go, …), which a project
        points at; one line naming it when it is not there (an installed acp-codegen has none)."""
        path = self.root / "generated" / target
        if not path.is_dir():
            raise GenerationError(
                f"scaffold --project --lang {target} points the project at {path}, which does "
                "not exist: run it in an acp-codegen source checkout (after `make generate`), "
                "or write the starter alone with --out"
            )
        return path


@dataclass(frozen=True, slots=True)
class Project:
    """A project folder's content."""

    files: dict[str, str]
    """Relative path (with `/`) to text."""
    packages: dict[str, Callable[[Path], None]] = field(default_factory=dict)
    """Relative folder to the writer of a generated package into an empty folder."""
    notes: tuple[str, ...] = ()
    """Lines the command prints after it wrote the folder (a name it had to change)."""


RenderProject = Callable[[Specification, Request], Project]


def load_project(target: str) -> RenderProject:
    """`render_project` of `acp_codegen.targets.<target>.project`."""
    module = importlib.import_module(f"acp_codegen.targets.{target}.project")
    return cast(RenderProject, module.render_project)


def check_folder(folder: Path, *, force: bool) -> None:
    """A project goes into a new or empty folder, or any folder with `force`."""
    if folder.exists() and not folder.is_dir():
        raise GenerationError(f"--project {folder} is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not force:
        raise GenerationError(
            f"--project {folder} is not empty; pass --force to write the project's files over "
            "what is there"
        )


def write_project(project: Project, folder: Path, *, force: bool) -> list[str]:
    """Write `project` into `folder` (see `check_folder`); the relative paths written, sorted.
    The generated packages are rendered first, into a staging folder inside it, then the files are
    written and each package folder is replaced whole."""
    check_folder(folder, force=force)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".acp-codegen-staging-") as tmp:
        staging = Path(tmp)
        for name, write_package in sorted(project.packages.items()):
            write_package(staging / name)
        for name, text in sorted(project.files.items()):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        for name in sorted(project.packages):
            target = folder / name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / name, target)
    return sorted([*project.files, *(f"{name}/" for name in project.packages)])
