"""The field's programs (layer: builds): other people's agents and clients, each fetched by its
own package manager from a pin and run unchanged.

- the official TypeScript SDK 2.4.0 (tests/interop/node, `npm ci` from its lock): its npm
  package ships no example agent or client, so the agents the interop tests run on it and a
  one-shot client doing what the Rust SDK's one-shot examples do (written here);
- the official Python SDK 0.12.1: `examples/agent.py` and `examples/client.py` of its source
  distribution (pinned by hash in python/requirements.txt), run in .venv-official, where the
  SDK's wheel is installed;
- the official Rust SDK 5.2.0 (crates.io, pinned in rust/Cargo.toml and Cargo.lock): the crate's
  `examples/simple_agent.rs`, `simple_agent_v2.rs`, `yolo_one_shot_client.rs` and
  `v2_one_shot_client.rs`, copied from cargo's download, built;
- coder/acp-go-sdk 0.13.0 (Go module proxy, pinned in go/go.mod and go.sum): `example/agent` and
  `example/client`;
- codex-acp 0.16.0 (tests/interop/production, `npm ci` from its lock), offline as
  tests/interop/test_interop_production.py runs it: a home folder of its own, no key of this
  machine, every proxy a closed local port. (claude-agent-acp runs with its model's mock:
  field_agents.py.)
"""

from __future__ import annotations

import functools
import json
import shutil
import tarfile
from pathlib import Path

from .builds import BUILD, HERE, ROOT, Build, BuildError, Program, checked, tool

NODE_PEERS = ROOT / "tests" / "interop" / "node"
PRODUCTION = ROOT / "tests" / "interop" / "production" / "node_modules" / ".bin"
OFFICIAL_VENV = ROOT / ".venv-official"
NODE = "install Node.js 20 or newer (https://nodejs.org)"
CARGO = "install Rust and cargo (https://rustup.rs)"
GO = "install Go 1.24 or newer (https://go.dev/dl/)"
SECRETS = ("OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN")
LOOPBACK_PROXY = "http://127.0.0.1:9"
"""A port nothing listens on: whatever the agent tries to reach stays on this machine."""
PYTHON_EXAMPLES = ("agent.py", "client.py")
"""The official Python SDK's examples the field runs."""
RUST_EXAMPLES = ("simple_agent", "simple_agent_v2", "yolo_one_shot_client", "v2_one_shot_client")
"""The official Rust SDK's examples the field runs (rust/Cargo.toml builds each as a binary)."""
PROXIES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")


def official_ts(script: str) -> Build:
    def build() -> Program:
        node = tool("node", NODE)
        if not (NODE_PEERS / "node_modules" / "@agentclientprotocol" / "sdk").is_dir():
            raise BuildError("the official TypeScript SDK is not installed: run `make conformance`")
        return Program((node, str(NODE_PEERS / script)))

    return build


def official_python(example: str) -> Build:
    """`examples/<example>` of the SDK's source distribution, run by the SDK's venv."""

    def build() -> Program:
        python = OFFICIAL_VENV / "bin" / "python"
        if not python.exists():
            raise BuildError("the official Python SDK's venv is missing: run `make conformance`")
        return Program((str(python), str(official_python_examples() / example)))

    return build


@functools.cache
def official_python_examples() -> Path:
    """The folder of the examples of the SDK's source distribution (pinned by hash)."""
    python = OFFICIAL_VENV / "bin" / "python"
    folder = BUILD / "official-python"
    if not (folder / "examples" / "client.py").exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        checked(
            [
                *(str(python), "-m", "pip", "download", "--quiet", "--no-deps"),
                *("--no-binary", ":all:", "--require-hashes", "-d", str(folder)),
                *("-r", str(HERE / "python" / "requirements.txt")),
            ],
            folder,
        )
        (sdist,) = folder.glob("agent_client_protocol-*.tar.gz")
        top = sdist.name.removesuffix(".tar.gz")
        (folder / "examples").mkdir()
        with tarfile.open(sdist) as archive:
            for name in PYTHON_EXAMPLES:
                member = archive.getmember(f"{top}/examples/{name}")
                source = archive.extractfile(member)
                assert source is not None, f"{member.name} is not a file"
                (folder / "examples" / name).write_bytes(source.read())
    return folder / "examples"


@functools.cache
def rust_binaries() -> Path:
    """The crate's example agents and clients, built; the folder of the binaries."""
    cargo = tool("cargo", CARGO)
    folder = BUILD / "official-rust"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("Cargo.toml", "Cargo.lock"):
        shutil.copyfile(HERE / "rust" / name, folder / name)
    checked([cargo, "fetch", "--locked"], folder)
    metadata = json.loads(checked([cargo, "metadata", "--locked", "--format-version", "1"], folder))
    (crate,) = [p for p in metadata["packages"] if p["name"] == "agent-client-protocol"]
    examples = Path(crate["manifest_path"]).parent / "examples"
    (folder / "examples").mkdir(exist_ok=True)
    for name in RUST_EXAMPLES:
        shutil.copyfile(examples / f"{name}.rs", folder / "examples" / f"{name}.rs")
    checked([cargo, "build", "--locked", "--release", "--bins"], folder)
    return folder / "target" / "release"


def official_rust(binary: str) -> Build:
    def build() -> Program:
        return Program((str(rust_binaries() / binary),))

    return build


def coder_go(example: str) -> Build:
    """`example/<example>` of the module, built."""

    def build() -> Program:
        go = tool("go", GO)
        folder = BUILD / "coder-go"
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("go.mod", "go.sum"):
            shutil.copyfile(HERE / "go" / name, folder / name)
        environment = {"GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false"}
        package = f"github.com/coder/acp-go-sdk/example/{example}"
        binary = f"bin/coder_{example}"
        checked([go, "build", "-o", binary, package], folder, environment)
        return Program((str(folder / binary),))

    return build


def production(name: str) -> Build:
    def build() -> Program:
        program = PRODUCTION / name
        if not program.exists():
            raise BuildError(f"{name} is not installed: run `make conformance` (npm ci)")
        home = BUILD / "home" / name
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        env: dict[str, str | None] = {"HOME": str(home), "NO_PROXY": "", "no_proxy": ""}
        env |= {secret: None for secret in SECRETS}
        env |= {proxy: LOOPBACK_PROXY for proxy in PROXIES}
        return Program((str(program),), env)

    return build


BUILDS: dict[str, Build] = {
    "official-ts-v1": official_ts("ts_agent.mjs"),
    "official-ts-v2": official_ts("ts_v2_agent.mjs"),
    "official-ts-client": official_ts("ts_one_shot_client.mjs"),
    "official-python": official_python("agent.py"),
    "official-python-client": official_python("client.py"),
    "official-rust-v1": official_rust("simple_agent"),
    "official-rust-v2": official_rust("simple_agent_v2"),
    "official-rust-v1-client": official_rust("yolo_one_shot_client"),
    "official-rust-v2-client": official_rust("v2_one_shot_client"),
    "coder-go": coder_go("agent"),
    "coder-go-client": coder_go("client"),
    "codex-acp": production("codex-acp"),
}
