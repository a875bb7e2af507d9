"""TypeScript and Go doc blocks: compiled (tsc --strict against the built package; go build and go
vet against generated/go), agent blocks run under the Python starter client and client blocks
against the Python starter agent.

TypeScript: every TypeScript block of the docs is compiled in one tsc run (tsc costs seconds per
run), each block (or fragment inside its wrapper `tests/docs/wrappers/NAME.ts`) a module of its
own, with generated/typescript's compiler options, in a folder whose `node_modules` links the
package `make ts-build` built in `.build/typescript`, as an npm install would put it. Each block
is then judged by the diagnostics in its own file. Go: each block (or fragment inside
`tests/docs/wrappers/NAME.go`) is a main package of a module that requires `acp-protocol-sdk`,
replaced with generated/go; it must be gofmt-clean, build and pass go vet, with the machine's own
toolchain and no network. A failure names the block and the line of the page the compiler means.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs import running
from tests.docs.blocks import Block, all_blocks
from tests.paths import ROOT

BUILD = ROOT / ".build" / "typescript"
TSC = BUILD / "node_modules" / ".bin" / "tsc"
GENERATED_GO = ROOT / "generated" / "go"
MARKERS = ("# FRAGMENT", "// FRAGMENT")

TSCONFIG = {
    "extends": str(BUILD / "tsconfig.json"),
    "compilerOptions": {
        "rootDir": ".",
        "outDir": "out",
        "declaration": False,
        "moduleDetection": "force",
        "noEmitOnError": False,
        "skipLibCheck": True,
    },
    "include": ["*.ts"],
}
"""The package's own options (NodeNext, ES2022, strict, exactOptionalPropertyTypes, …), each
block a module even without an import, so that two blocks' names never meet. The package's and
node's declaration files are not checked again (`make ts-build` checked them; 7 s → 3 s): the
blocks are checked in full against them."""

GO_MOD = f"""module docblocks

go 1.24

require acp-protocol-sdk v0.0.0

replace acp-protocol-sdk => {GENERATED_GO}
"""


def source_name(block: Block, extension: str) -> str:
    """`install_118.ts`: the page and the line of the block's fence."""
    stem = re.sub(r"\W", "_", block.page.stem)
    return f"{stem}_{block.line}.{extension}"


def program_text(block: Block, extension: str) -> str:
    return running.wrapped(block, extension) if block.fragment else block.text


def page_line(block: Block, extension: str, line: int) -> str:
    """Where line `line` (1-based) of the program a block became is written: a line of the page,
    or of the wrapper for a fragment's context."""
    if not block.fragment:
        return f"{block.where.rsplit(':', 1)[0]}:{block.line + line}"
    wrapper = running.WRAPPERS / f"{block.fragment}.{extension}"
    lines = [text.strip() for text in wrapper.read_text().splitlines()]
    marker = next(index for index, text in enumerate(lines) if text in MARKERS)
    length = len(block.text.splitlines())
    if line <= marker:
        return f"{wrapper.relative_to(ROOT)}:{line}"
    if line <= marker + length:
        return f"{block.where.rsplit(':', 1)[0]}:{block.line + line - marker}"
    return f"{wrapper.relative_to(ROOT)}:{line - length + 1}"


def located(block: Block, extension: str, output: str, pattern: re.Pattern[str]) -> str:
    """The compiler's output with each `file:line` of the block's program followed by where that
    line is in the page (or wrapper)."""

    def name(match: re.Match[str]) -> str:
        where = page_line(block, extension, int(match["line"]))
        return f"{match[0]} [{where}]"

    return pattern.sub(name, output)


# TypeScript


@dataclass(frozen=True)
class TypeScriptBuild:
    folder: Path
    diagnostics: dict[str, list[str]]
    """Each diagnostic of tsc under the name of its file; "" for one that is in no block's file."""


_TS_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s(][^(]*)\(\d+,\d+\): ")
_TS_LOCATION = re.compile(r"(?m)^[\w.]+\.ts\((?P<line>\d+),\d+\)")


@functools.cache
def typescript_build(base: Path) -> TypeScriptBuild:
    """Every TypeScript block of the docs written under `base/typescript` and compiled in one tsc
    run; the JavaScript in `out/` (tsc writes it even for a file with errors)."""
    node = shutil.which("node")
    if node is None or not TSC.exists() or not (BUILD / "dist" / "index.d.ts").exists():
        pytest.fail("node and the built TypeScript package are needed: run `make ts-build`")
    folder = base / "typescript"
    folder.mkdir()
    modules = folder / "node_modules"
    modules.mkdir()
    (modules / "acp-protocol-sdk").symlink_to(BUILD, target_is_directory=True)
    (modules / "@types").symlink_to(BUILD / "node_modules" / "@types", target_is_directory=True)
    (folder / "package.json").write_text('{"type": "module", "private": true}\n')
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG, indent=2) + "\n")
    names: list[str] = []
    for block in all_blocks():
        if block.language == "ts" and not block.illustrative:
            name = source_name(block, "ts")
            (folder / name).write_text(program_text(block, "ts"))
            names.append(name)
    done = running.run([str(TSC), "-p", "tsconfig.json", "--pretty", "false"], folder)
    diagnostics: dict[str, list[str]] = {name: [] for name in ["", *names]}
    current = ""
    for line in done.stdout.splitlines():
        if not line.startswith(" "):
            found = _TS_DIAGNOSTIC.match(line)
            current = found["file"] if found and found["file"] in diagnostics else ""
        diagnostics[current].append(line)
    if done.returncode != 0 and not any(diagnostics.values()):
        diagnostics[""].append(f"tsc exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return TypeScriptBuild(folder, diagnostics)


def run_ts(block: Block, folder: Path, starters: dict[str, Path]) -> None:
    """The block compiles under tsc --strict (all blocks in one run, in a folder beside the page
    folders); an agent block is then run with node under the Python starter client, a client
    block against the Python starter agent."""
    built = typescript_build(folder.parent)
    name = source_name(block, "ts")
    errors = built.diagnostics[""] + built.diagnostics[name]
    if errors:
        output = located(block, "ts", "\n".join(errors), _TS_LOCATION)
        pytest.fail(f"{block.where}: tsc --strict fails ({built.folder / name}):\n{output}")
    program = ["node", str(built.folder / "out" / name.replace(".ts", ".js"))]
    if block.agent is not None:
        running.run_agent_program(block, folder, starters[block.agent], program)
    if block.client is not None:
        running.run_client_program(block, folder, starters[f"agent-{block.client}"], program)


# Go

_GO_LOCATION = re.compile(r"(?m)(?:\./)?main\.go:(?P<line>\d+)(?::\d+)?")


def go_environment() -> dict[str, str]:
    """The machine's own toolchain, the module proxy off (generated/go needs no module), the
    default build cache (kept warm across runs)."""
    return {
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-mod=mod -buildvcs=false",
        "GOPROXY": "off",
        "GOWORK": "off",
    }


def go(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=folder,
        env={**running.environment(), **go_environment()},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@functools.cache
def go_module(base: Path) -> Path:
    """The module the Go blocks are packages of (one folder per block)."""
    if shutil.which("go") is None or shutil.which("gofmt") is None:
        pytest.fail("go not found on PATH: install Go 1.24 or newer (https://go.dev/dl/)")
    module = base / "go"
    module.mkdir()
    (module / "go.mod").write_text(GO_MOD)
    return module


def run_go(block: Block, folder: Path, starters: dict[str, Path]) -> None:
    """The block, as a main package, is gofmt-clean, builds and passes go vet; an agent block is
    then run under the Python starter client, a client block against the Python starter agent."""
    module = go_module(folder.parent)
    package = module / source_name(block, "go").removesuffix(".go")
    package.mkdir()
    (package / "main.go").write_text(program_text(block, "go"))
    program = package / "program"
    steps = (
        ("gofmt -d", ["gofmt", "-d", "main.go"]),
        ("go build", ["go", "build", "-o", str(program), "."]),
        ("go vet", ["go", "vet", "."]),
    )
    for what, command in steps:
        done = go(command, package)
        output = (done.stdout + done.stderr).strip()
        if done.returncode != 0 or (what == "gofmt -d" and output):
            output = located(block, "go", output, _GO_LOCATION)
            pytest.fail(f"{block.where}: {what} fails ({package / 'main.go'}):\n{output}")
    if block.agent is not None:
        running.run_agent_program(block, folder, starters[block.agent], [str(program)])
    if block.client is not None:
        running.run_client_program(block, folder, starters[f"agent-{block.client}"], [str(program)])
