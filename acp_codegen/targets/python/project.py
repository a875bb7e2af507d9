"""`acp-codegen scaffold agent|client --project DIR` (Python): the starter beside a README whose
two commands make a venv and install the checkout's generated/python into it (by its path
relative to the folder). Files: README.md, <role>.py (the starter, as `--out` writes it)."""

from __future__ import annotations

from acp_codegen.ir import Specification
from acp_codegen.targets.project import SDK, Project, Request
from acp_codegen.targets.python import PACKAGE, template_environment

TEMPLATES = {"README.md": "project/README.md.jinja"}
"""Each project file and the template it comes from."""


def render_project(spec: Specification, request: Request) -> Project:
    files = request.files(
        template_environment(),
        TEMPLATES,
        f"{request.role}.py",
        sdk=SDK,
        package=PACKAGE,
        sdk_path=request.relative(request.generated("python")),
    )
    return Project(files=files)
