"""`acp-codegen scaffold agent|client --lang go`: a runnable starter in Go (ACP v1).

The starter is one `package main` file on the generated module (`acp-protocol-sdk`): the agent
implements the edition's `Agent` interface (embedding `UnimplementedAgent`, so what it does not
implement is answered -32601) and serves on stdio; the client spawns its agent with
`acp.Spawn` (its own process group, ended with the connection), implements `Client`, sends one
prompt and prints the streamed reply. The bodies show the patterns: streaming `session/update`,
the request's ctx (a nested request made with it is cancelled with it; `session/cancel` and
`$/cancel_request` end it), files served only under the working directory. The handlers'
names and params come from the IR's method table; it is the user's file, written once.

ACP v2's starter (the insertion lifecycle) is not written yet: `--protocol v2` says so in one
line.
"""

from __future__ import annotations

from acp_codegen.ir import Specification, Stability
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go import MODULE, template_environment
from acp_codegen.targets.go.tables import MethodView, TablesView
from acp_codegen.targets.go.views import PackageView

SUFFIX = ".go"
STARTER_METHODS = {
    "agent": ("initialize", "session/new", "session/prompt"),
    "client": (
        "initialize",
        "session/new",
        "session/prompt",
        "session/update",
        "session/request_permission",
        "fs/read_text_file",
    ),
}
"""The methods each starter implements or calls: each must be in the edition's method table."""


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = "v1"
) -> str:
    """The starter program for `role_name` ("agent" or "client")."""
    if protocol != "v1":
        raise GenerationError(
            f"scaffold --lang go --protocol {protocol}: there is no Go {protocol} starter yet; "
            "scaffold v1, or use --lang python or --lang typescript for v2"
        )
    channel = Stability.UNSTABLE if unstable else Stability.STABLE
    edition = spec.edition(protocol, channel)
    if edition is None:
        raise GenerationError(
            f"{spec.origin} pins no {channel.value} {protocol} schema to scaffold from"
        )
    if role_name not in STARTER_METHODS:
        raise GenerationError(f"unknown role {role_name!r}; choose one of agent, client")
    view = PackageView(edition)
    tables = TablesView(edition, view)
    by_name = {m.method.name: m for m in tables.methods}
    missing = [name for name in STARTER_METHODS[role_name] if name not in by_name]
    if missing:
        raise GenerationError(
            f"{edition.source}: the Go starter {role_name} needs {', '.join(missing)}"
        )
    flags = ["--unstable"] if unstable else []
    command = " ".join(["acp-codegen scaffold", role_name, "--lang go", *flags])
    return (
        template_environment()
        .get_template("scaffold.go.jinja")
        .render(
            role=role_name,
            command=command,
            edition=edition,
            package_path=f"{MODULE}/{edition.key}",
            module=MODULE,
            m={name: _signature(by_name[name], view) for name in STARTER_METHODS[role_name]},
        )
    )


def _signature(method: MethodView, view: PackageView) -> dict[str, str]:
    """A method's Go name and its params and result types, qualified by the edition's package."""
    m = method.method
    return {
        "name": method.name,
        "params": f"v1.{view.go(m.params)}" if m.params else "",
        "result": f"v1.{view.go(m.result)}" if m.result else "",
    }
