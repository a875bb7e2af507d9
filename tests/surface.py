"""Which files need the protocol surface they were written against, and whether the pin has it.

The typed-layer tests, the examples, the interop scenarios and the benchmark harness use ACP v1 as
the 2.x releases publish it: `acp_protocol.v1` (a stable v1 schema) with the models they name
(`PromptRequest`, `SessionInfoUpdate`, …). A pinned release that lacks any of them (1.x ships no
stable v1 schema; 0.x lacks many types) cannot run them. For such a pin they are skipped, each
with the reason (`conftest.pytest_pycollect_makemodule`), and left out of mypy (`make lint` asks
`python -m tests.surface` which paths to check). Every other test runs for every pin.

What a file needs is read from its source: every `from acp_protocol.<v>… import …` and every
attribute of an imported models module (`models.PromptRequest`).
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Programs the surface tests run as subprocesses: what they need counts too.
PROGRAMS = ("examples/agent.py", "examples/client.py", "tests/interop/our_agent.py")
SURFACE_TESTS = ("test_examples.py", "test_bench_smoke.py", "test_scaffold.py")
CHECKED_DIRS = ("tests", "bench", "examples")


def _imports_generated_editions(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and (node.module or "").startswith("acp_protocol.v")
        for node in ast.walk(tree)
    )


@cache
def surface_files() -> tuple[Path, ...]:
    """The files of `CHECKED_DIRS` that import a generated edition, plus the programs and tests
    that run one."""
    found = []
    for directory in CHECKED_DIRS:
        for path in sorted((ROOT / directory).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            if _imports_generated_editions(tree) or path.name in SURFACE_TESTS:
                found.append(path)
    found += [ROOT / p for p in PROGRAMS if ROOT / p not in found]
    return tuple(found)


def _needs(path: Path) -> set[tuple[str, str]]:
    """(module, attribute) pairs the file uses from the generated editions."""
    tree = ast.parse(path.read_text())
    needs: set[tuple[str, str]] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("acp_protocol.v"):
            module = node.module or ""
            for alias in node.names:
                needs.add((module, alias.name))
                aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and aliases.get(node.value.id, "").endswith(".models")
        ):
            needs.add((aliases[node.value.id], node.attr))
    return needs


@cache
def missing_surface() -> str | None:
    """Why the pinned schemas cannot run the surface files, or None when they can."""
    missing: list[str] = []
    for path in surface_files():
        for module_name, attribute in sorted(_needs(path)):
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                missing.append(module_name)
                continue
            if not hasattr(module, attribute):
                missing.append(f"{module_name}.{attribute}")
    if not missing:
        return None
    names = sorted(set(missing))
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return (
        f"written against the ACP v1 surface of the 2.x releases; the pinned "
        f"{_pinned_origin()} lacks {shown}"
    )


def _pinned_origin() -> str:
    lock = json.loads((ROOT / "schema" / "lock.json").read_text())
    return f"{lock['package']}@{lock['version']}"


def typecheck_paths() -> list[str]:
    """What mypy checks besides acp_codegen/ and the generated package."""
    if missing_surface() is None:
        return list(CHECKED_DIRS)
    skipped = set(surface_files())
    return [
        str(path.relative_to(ROOT))
        for directory in CHECKED_DIRS
        for path in sorted((ROOT / directory).rglob("*.py"))
        if path not in skipped and "node_modules" not in path.parts
    ]


if __name__ == "__main__":
    reason = missing_surface()
    if reason is not None:
        print(f"mypy leaves out {len(surface_files())} files: {reason}", file=sys.stderr)
    print(" ".join(typecheck_paths()))
