"""`acp-codegen scaffold agent|client --lang go --project DIR`: a module `go build` builds.

go.mod requires the generated module (`acp-protocol-sdk`, which has no host and no release) at
v0.0.0 and replaces it with the checkout's generated/go, by its path relative to the folder, as
tests/go/go.mod does; the generated module is standard library only, so the build needs no
network and no go.sum. go.mod's own module path is `--module`, else the folder's name when Go
takes it, else one derived from it (`module_path`). Files: go.mod, README.md (the command that
builds it and the one that runs it), main.go (the starter, as `--out` writes it).
"""

from __future__ import annotations

from acp_codegen.ir import Specification
from acp_codegen.targets.go import GO_VERSION, MODULE, module_path, template_environment
from acp_codegen.targets.project import Project, Request

MODULE_VERSION = "v0.0.0"
"""The version go.mod requires the generated module at: any version works with the `replace`,
and the module has no release to name."""
TEMPLATES = {"go.mod": "project/go.mod.jinja", "README.md": "project/README.md.jinja"}
"""Each project file and the template it comes from."""


def render_project(spec: Specification, request: Request) -> Project:
    path, note = module_path.choose(request.name, request.module, MODULE)
    files = request.files(
        template_environment(),
        TEMPLATES,
        "main.go",
        project_module=path,
        binary=module_path.binary(path),
        module=MODULE,
        module_version=MODULE_VERSION,
        module_path=request.relative(request.generated("go")),
        go_version=GO_VERSION,
    )
    return Project(files=files, notes=() if note is None else (note,))
