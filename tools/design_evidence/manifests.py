"""Where each generated runtime's dependencies stop (layer: evidence), read from the generated
packages' own manifests and, for Go, from every import of the module.

Cheap (file reads only): tests/docs/test_design_page.py recomputes it on every run;
`python -m tools.design_evidence.manifests` prints it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:\w+\s+)?"([^"]+)"\s*$', re.M)
_GO_BLOCK = re.compile(r"^import \($(.*?)^\)", re.M | re.S)
_GO_SINGLE = re.compile(r'^import (?:\w+ )?"([^"]+)"', re.M)


def python() -> dict[str, Any]:
    project = tomllib.loads((GENERATED / "python" / "pyproject.toml").read_text())["project"]
    return {
        "manifest": "generated/python/pyproject.toml",
        "dependencies": project["dependencies"],
        "extras": sorted(project.get("optional-dependencies", {})),
    }


def typescript() -> dict[str, Any]:
    package = json.loads((GENERATED / "typescript" / "package.json").read_text())
    optional = package.get("peerDependenciesMeta", {})
    return {
        "manifest": "generated/typescript/package.json",
        "dependencies": sorted(package.get("dependencies", {})),
        "optional_peers": sorted(name for name, meta in optional.items() if meta.get("optional")),
        "node": package["engines"]["node"],
    }


def go_requires(mod: str) -> list[str]:
    """The module paths a go.mod requires directly (`require x v` and `require ( … )` alike;
    `// indirect` ones are what those bring)."""
    blocks = re.findall(r"^require \($(.*?)^\)", mod, re.M | re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    lines += re.findall(r"^require ([^(\s].*)$", mod, re.M)
    return sorted(line.split()[0] for line in lines if line.split() and "// indirect" not in line)


def go_module_files(folder: Path) -> list[Path]:
    """The Go files of the module rooted at `folder`: not those under a folder with a go.mod of
    its own (another module)."""
    nested = [mod.parent for mod in folder.rglob("go.mod") if mod.parent != folder]
    return [
        path
        for path in folder.rglob("*.go")
        if not any(path.is_relative_to(other) for other in nested)
    ]


def go_imports(folder: Path, module: str) -> set[str]:
    """Every package the module's Go files import, but its own."""
    found: set[str] = set()
    for path in go_module_files(folder):
        text = path.read_text(encoding="utf-8")
        for block in _GO_BLOCK.findall(text):
            found.update(_GO_IMPORT.findall(block))
        found.update(_GO_SINGLE.findall(text))
    return {name for name in found if name != module and not name.startswith(module + "/")}


def go() -> dict[str, Any]:
    root = GENERATED / "go"
    mod = (root / "go.mod").read_text()
    module = re.search(r"^module (\S+)", mod, re.M)
    version = re.search(r"^go (\S+)", mod, re.M)
    assert module is not None and version is not None
    imports = go_imports(root, module[1])
    nested = []
    for other in sorted(root.rglob("go.mod")):
        if other.parent == root:
            continue
        text = other.read_text()
        name = re.search(r"^module (\S+)", text, re.M)
        assert name is not None
        nested.append(
            {
                "module": name[1],
                "require": [r for r in go_requires(text) if r != module[1]],
            }
        )
    return {
        "manifest": "generated/go/go.mod",
        "require": go_requires(mod),
        "go": version[1],
        "imports": len(imports),
        # A standard library path has no dot in its first element (`encoding/json`).
        "outside_standard_library": sorted(i for i in imports if "." in i.split("/")[0]),
        "modules_apart": nested,
    }


def collect() -> dict[str, Any]:
    return {"python": python(), "typescript": typescript(), "go": go()}


if __name__ == "__main__":
    print(json.dumps(collect(), indent=2))
