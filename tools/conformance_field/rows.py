"""The field's rows (layer: data): which implementation each row tests, its version, the edition
its cases come from, who wrote it, and which build makes its command line.

A row is rerun alone by `make conformance ROW=<key>`; `make conformance` runs them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from acp_codegen import __version__ as CODEGEN_VERSION

Origin = Literal["ours", "third party"]


@dataclass(frozen=True)
class Row:
    key: str
    implementation: str
    version: str
    protocol: Literal["v1", "v2"]
    origin: Origin
    build: str
    """The build (a name in `builds.BUILDS`) that makes the program's command line."""
    program: str
    """What runs, said for the table (the example's path in its package, or ours)."""
    mode: Literal["agent", "client"] = "agent"
    """The suite's mode: it plays the client of an agent, or the agent of a client."""
    arguments: tuple[str, ...] = ()
    """Added to the program's command line (a client's `{prompt}` and `{agent}`)."""
    options: tuple[str, ...] = ()
    """The suite's options for this row beyond the field's own."""

    @property
    def rerun(self) -> str:
        return f"make conformance ROW={self.key}"


def starter(lang: str, title: str, protocol: Literal["v1", "v2"]) -> Row:
    return Row(
        f"{lang}-{protocol}",
        f"acp-codegen {title} starter agent",
        CODEGEN_VERSION,
        protocol,
        "ours",
        f"starter-{lang}-{protocol}-agent",
        f"`acp-codegen scaffold agent --lang {lang} --protocol {protocol}`",
    )


def starter_client(lang: str, title: str, protocol: Literal["v1", "v2"]) -> Row:
    """A starter client under the suite's client mode: told its prompt and its agent (the
    suite's relay) as tests/starters/table.py tells it, sent Ctrl-C (`--sigint`), and expected
    to reject a permission request (no terminal: `--permission reject`), as
    tests/conformance/test_starter_clients.py runs it."""
    return Row(
        f"{lang}-{protocol}-client",
        f"acp-codegen {title} starter client",
        CODEGEN_VERSION,
        protocol,
        "ours",
        f"starter-{lang}-{protocol}-client",
        f"`acp-codegen scaffold client --lang {lang} --protocol {protocol}`",
        mode="client",
        arguments=("--prompt", "{prompt}", "--", "{agent}"),
        options=("--sigint", "--permission", "reject"),
    )


ROWS = (
    starter("python", "Python", "v1"),
    starter("python", "Python", "v2"),
    starter("typescript", "TypeScript", "v1"),
    starter("typescript", "TypeScript", "v2"),
    starter("go", "Go", "v1"),
    starter("go", "Go", "v2"),
    Row(
        "official-ts-v1",
        "official TypeScript SDK (`@agentclientprotocol/sdk`)",
        "2.4.0",
        "v1",
        "third party",
        "official-ts-v1",
        "tests/interop/node/ts_agent.mjs: an agent written here on the SDK"
        " (the npm package ships no example)",
    ),
    Row(
        "official-ts-v2",
        "official TypeScript SDK (`@agentclientprotocol/sdk`)",
        "2.4.0",
        "v2",
        "third party",
        "official-ts-v2",
        "tests/interop/node/ts_v2_agent.mjs: an agent written here on the SDK",
    ),
    Row(
        "official-python",
        "official Python SDK (`agent-client-protocol`, PyPI)",
        "0.12.1",
        "v1",
        "third party",
        "official-python",
        "`examples/agent.py` of the SDK's source distribution",
    ),
    Row(
        "official-rust-v1",
        "official Rust SDK (`agent-client-protocol`, crates.io)",
        "5.2.0",
        "v1",
        "third party",
        "official-rust-v1",
        "`examples/simple_agent.rs` of the crate",
    ),
    Row(
        "official-rust-v2",
        "official Rust SDK (`agent-client-protocol`, crates.io)",
        "5.2.0",
        "v2",
        "third party",
        "official-rust-v2",
        "`examples/simple_agent_v2.rs` of the crate",
    ),
    Row(
        "coder-go",
        "coder/acp-go-sdk (Go)",
        "0.13.0",
        "v1",
        "third party",
        "coder-go",
        "`example/agent` of the module",
    ),
    Row(
        "codex-acp",
        "codex-acp (`@zed-industries/codex-acp`)",
        "0.16.0",
        "v1",
        "third party",
        "codex-acp",
        "the agent offline: no account, every proxy a closed local port",
    ),
    Row(
        "claude-agent-acp",
        "claude-agent-acp (`@agentclientprotocol/claude-agent-acp`)",
        "0.101.0",
        "v1",
        "third party",
        "claude-agent-acp-mocked",
        "the agent offline as the field runs it (tests/field/agents.py), its model a loopback"
        " mock of the Anthropic Messages API answering every request with a few words",
    ),
    Row(
        "claude-agent-acp-v2",
        "claude-agent-acp (`@agentclientprotocol/claude-agent-acp`)",
        "0.101.0",
        "v2",
        "third party",
        "claude-agent-acp-mocked",
        "the agent offline as the field runs it, its model the loopback Anthropic mock",
    ),
    Row(
        "gemini-cli",
        "gemini-cli (`@google/gemini-cli`)",
        "0.61.0",
        "v1",
        "third party",
        "gemini-cli-mocked",
        "the agent offline as the field runs it (tests/field/gemini.py, `--acp`), its model a"
        " loopback mock of the Gemini API answering every request with a few words",
    ),
    # Client rows (the suite's client mode): our starters' v1 and v2 clients, then the field's,
    # each told its prompt and its agent the way its usage line says, and given `--permission`
    # only where the example says what it answers (no field client cancels on Ctrl-C).
    starter_client("python", "Python", "v1"),
    starter_client("python", "Python", "v2"),
    starter_client("typescript", "TypeScript", "v1"),
    starter_client("typescript", "TypeScript", "v2"),
    starter_client("go", "Go", "v1"),
    starter_client("go", "Go", "v2"),
    Row(
        "official-ts-v1-client",
        "official TypeScript SDK (`@agentclientprotocol/sdk`)",
        "2.4.0",
        "v1",
        "third party",
        "official-ts-client",
        "tests/interop/node/ts_one_shot_client.mjs: a client written here on the SDK, doing what"
        " the Rust SDK's `yolo_one_shot_client` does (the npm package ships no example)",
        mode="client",
        arguments=("v1", "{prompt}", "{agent}"),
        options=("--permission", "allow"),
    ),
    Row(
        "official-ts-v2-client",
        "official TypeScript SDK (`@agentclientprotocol/sdk`)",
        "2.4.0",
        "v2",
        "third party",
        "official-ts-client",
        "tests/interop/node/ts_one_shot_client.mjs: a client written here on the SDK, doing what"
        " the Rust SDK's `v2_one_shot_client` does",
        mode="client",
        arguments=("v2", "{prompt}", "{agent}"),
        options=("--permission", "reject"),
    ),
    Row(
        "official-python-client",
        "official Python SDK (`agent-client-protocol`, PyPI)",
        "0.12.1",
        "v1",
        "third party",
        "official-python-client",
        "`examples/client.py` of the SDK's source distribution: its prompt read from standard"
        " input (`--stdin`)",
        mode="client",
        arguments=("{agent}",),
        options=("--stdin", "{prompt}"),
    ),
    Row(
        "official-rust-v1-client",
        "official Rust SDK (`agent-client-protocol`, crates.io)",
        "5.2.0",
        "v1",
        "third party",
        "official-rust-v1-client",
        "`examples/yolo_one_shot_client.rs` of the crate (it approves every permission request)",
        mode="client",
        arguments=("--command={agent}", "{prompt}"),
        options=("--permission", "allow"),
    ),
    Row(
        "official-rust-v2-client",
        "official Rust SDK (`agent-client-protocol`, crates.io)",
        "5.2.0",
        "v2",
        "third party",
        "official-rust-v2-client",
        "`examples/v2_one_shot_client.rs` of the crate (it declines every permission request)",
        mode="client",
        arguments=("--command={agent}", "{prompt}"),
        options=("--permission", "reject"),
    ),
    Row(
        "coder-go-client",
        "coder/acp-go-sdk (Go)",
        "0.13.0",
        "v1",
        "third party",
        "coder-go-client",
        "`example/client` of the module (its prompt is fixed; it asks a permission's choice on"
        " standard input)",
        mode="client",
        arguments=("{agent}",),
    ),
)
"""Every row, in the table's order: ours first, then the field; agents, then clients."""

BY_KEY = {row.key: row for row in ROWS}
