"""`acp-codegen scaffold agent|client --lang typescript --project DIR`: a folder that builds with
`npm install` and `npm run build`.

The folder carries the generated package in `acp-protocol-sdk/` (rendered by this target, as
`generate` writes generated/typescript, with headers naming the scaffold command) and depends on
it by `file:acp-protocol-sdk`. It cannot point at the checkout's generated/typescript instead: npm
runs a linked folder's `prepare` (tsc) in that folder, where no typescript is installed
(`sh: tsc: not found`), and a build there would put dist/ into generated/, which `acp-codegen
check` reports as files the generator did not write. Inside the project, the package's `prepare`
finds the project's own tsc (npm puts every enclosing node_modules/.bin on PATH), so a clean
`npm install` builds it; `allowScripts` approves that script for npm versions that ask.

Files: package.json (private, ES module, `build` and `start`, typescript and @types/node at the
package's own pins), tsconfig.json (the package's compiler options: strict, NodeNext), .gitignore,
README.md (the two commands), src/<role>.ts (the starter, as `--out` writes it).
"""

from __future__ import annotations

from pathlib import Path

from acp_codegen.ir import Specification
from acp_codegen.targets import Options
from acp_codegen.targets.project import SDK, Project, Request
from acp_codegen.targets.typescript import DEV_DEPENDENCIES, generate, template_environment

PROJECT_DEV_DEPENDENCIES = ("@types/node", "typescript")
"""What the project needs to build: the package's own exact pins of these (`DEV_DEPENDENCIES`)."""
TEMPLATES = {
    "package.json": "project/package.json.jinja",
    "tsconfig.json": "project/tsconfig.json.jinja",
    ".gitignore": "project/gitignore.jinja",
    "README.md": "project/README.md.jinja",
}
"""Each project file and the template it comes from."""


def render_project(spec: Specification, request: Request) -> Project:
    files = request.files(
        template_environment(),
        TEMPLATES,
        f"src/{request.role}.ts",
        sdk=SDK,
        sdk_path=SDK,
        dev_dependencies=[
            (name, version)
            for name, version in DEV_DEPENDENCIES
            if name in PROJECT_DEV_DEPENDENCIES
        ],
    )

    def write_package(out_dir: Path) -> None:
        generate(spec, out_dir, Options(command=request.command))

    return Project(files=files, packages={SDK: write_package})
