"""The twelve starters (`acp-codegen scaffold agent|client --lang python|typescript|go --protocol
v1|v2`), written by the real command line and built once: Python as written; TypeScript compiled in
one `tsc` run against the built package (.build/typescript, `make ts-build`); Go in one module that
requires generated/go, one `go build` for the four programs. Each is a command line to run."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from acp_codegen import pipeline
from acp_codegen.ir import Specification
from acp_codegen.targets import load_scaffold, write_scaffold
from tests.paths import ROOT

LANGUAGES = ("python", "typescript", "go")
PROTOCOLS = ("v1", "v2")
ROLES = ("agent", "client")
TS_BUILD = ROOT / ".build" / "typescript"
NODE_PEERS = ROOT / "tests" / "interop" / "node"
OFFICIAL_AGENTS = {"v1": NODE_PEERS / "ts_agent.mjs", "v2": NODE_PEERS / "ts_v2_agent.mjs"}
"""The official TypeScript SDK's (@agentclientprotocol/sdk 2.4.0) agent of each version."""
TSCONFIG = """{
  "extends": "../../tsconfig.json",
  "compilerOptions": {"rootDir": ".", "outDir": "out", "declaration": false},
  "include": ["."]
}
"""
GO_MOD = f"""module starters

go 1.24

require acp-protocol-sdk v0.0.0

replace acp-protocol-sdk => {ROOT / "generated" / "go"}
"""


@dataclass(frozen=True)
class Starter:
    """One built starter: which it is, and the command line that runs it."""

    lang: str
    protocol: str
    role: str
    command: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.lang}-{self.protocol}-{self.role}"


Starters = dict[tuple[str, str, str], Starter]
"""(lang, protocol, role) → the built starter."""


@functools.cache
def specification() -> Specification:
    """The pinned schemas, read once (what `acp-codegen scaffold` reads on each run)."""
    return pipeline.load_specification(ROOT)


def scaffold(role: str, lang: str, protocol: str, out: Path) -> None:
    """What `acp-codegen scaffold ROLE --lang LANG --protocol PROTOCOL --out OUT` writes."""
    source = load_scaffold(lang)(specification(), role, unstable=False, protocol=protocol)
    write_scaffold(source, out, force=True)


def checked(command: list[str], cwd: Path) -> None:
    environment = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false"}
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, env=environment, timeout=900
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}"


def tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    assert path is not None, f"{name} not found on PATH: {hint}"
    return path


def build_python(folder: Path) -> Starters:
    built = {}
    for protocol in PROTOCOLS:
        for role in ROLES:
            out = folder / protocol / f"{role}.py"
            scaffold(role, "python", protocol, out)
            built["python", protocol, role] = (sys.executable, str(out))
    return {k: Starter(*k, command=v) for k, v in built.items()}


def build_typescript(folder: Path) -> Starters:
    """`folder` must be two levels under the built package (its tsconfig extends it, and the
    package resolves `acp-protocol-sdk/v1` to itself)."""
    node = tool("node", "install Node.js 18 or newer")
    tsc = TS_BUILD / "node_modules" / ".bin" / "tsc"
    assert tsc.exists(), "the built TypeScript package is needed: run `make ts-build`"
    for protocol in PROTOCOLS:
        for role in ROLES:
            scaffold(role, "typescript", protocol, folder / protocol / f"{role}.ts")
    (folder / "tsconfig.json").write_text(TSCONFIG)
    checked([str(tsc), "-p", str(folder / "tsconfig.json")], TS_BUILD)
    return {
        ("typescript", p, r): Starter(
            "typescript", p, r, (node, str(folder / "out" / p / f"{r}.js"))
        )
        for p in PROTOCOLS
        for r in ROLES
    }


def build_go(folder: Path) -> Starters:
    go = tool("go", "install Go 1.24 or newer (https://go.dev/dl/)")
    (folder / "go.mod").parent.mkdir(parents=True, exist_ok=True)
    (folder / "go.mod").write_text(GO_MOD)
    for protocol in PROTOCOLS:
        for role in ROLES:
            scaffold(role, "go", protocol, folder / f"{protocol}_{role}" / "main.go")
    checked([go, "vet", "./..."], folder)
    checked([go, "build", "-o", "bin/", "./..."], folder)
    return {
        ("go", p, r): Starter("go", p, r, (str(folder / "bin" / f"{p}_{r}"),))
        for p in PROTOCOLS
        for r in ROLES
    }


def build_all(scratch: Path) -> Starters:
    """All twelve starters; TypeScript in a fresh folder of the built package (removed by
    `remove_typescript`), the rest under `scratch`."""
    starters: Starters = {}
    starters |= build_python(scratch / "python")
    starters |= build_typescript(typescript_folder())
    starters |= build_go(scratch / "go")
    return starters


def typescript_folder() -> Path:
    return TS_BUILD / "scaffold-tests" / f"table-{uuid.uuid4().hex}"


def official_agent(protocol: str) -> Starter:
    """The official TypeScript SDK's agent of `protocol`, as a starter agent stands."""
    node = tool("node", "install Node.js 18 or newer")
    assert (NODE_PEERS / "node_modules").exists(), "run `npm ci --prefix tests/interop/node`"
    return Starter("official", protocol, "agent", (node, str(OFFICIAL_AGENTS[protocol])))


TOOL_CALL_AGENT = Path(__file__).with_name("tool_call_agent.py")


def tool_call_agent() -> Starter:
    """The v2 agent that reports a tool call in two updates, the second with only its status
    (tests/starters/tool_call_agent.py), as a starter agent stands."""
    return Starter("tool-call", "v2", "agent", (sys.executable, str(TOOL_CALL_AGENT)))


IDLE_FIRST_AGENT = Path(__file__).with_name("idle_first_agent.py")


def idle_first_agent() -> Starter:
    """The v2 agent that reports its new session idle at once, as the official Rust SDK's v2
    agents do (tests/starters/idle_first_agent.py), as a starter agent stands."""
    return Starter("idle-first", "v2", "agent", (sys.executable, str(IDLE_FIRST_AGENT)))
