"""`acp-codegen scaffold agent|client --lang go`: a runnable starter in Go (ACP v1).

The starter is one `package main` file on the generated module (`acp-protocol-sdk`): the agent
implements the edition's `Agent` interface (embedding `UnimplementedAgent`, so what it does not
implement is answered -32601) and serves on stdio; the client spawns its agent with
`acp.Spawn` (its own process group, ended with the connection), implements `Client`, sends one
prompt and prints the streamed reply. The bodies show the patterns: streaming `session/update`,
the request's ctx (a nested request made with it is cancelled with it; `session/cancel` and
`$/cancel_request` end it), files served only under the working directory. The handlers'
names and params come from the IR's method table; it is the user's file, written once.

For an edition whose prompt is answered at insertion (ACP v2) the one template's `insertion`
blocks are chosen: the agent's prompt method is the foreground work (the SDK answers the prompt,
reports the states and carries out cancel and close), the client prints the reply until the
agent reports idle and sends `session/cancel` on Ctrl-C. The blocks follow the IR's lifecycle,
not the version's name. The edition, the role and the command come from the kit
(`kit.scaffold.starter`).
"""

from __future__ import annotations

from acp_codegen.ir import PromptAnswer, Specification
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go import MODULE, template_environment
from acp_codegen.targets.go.tables import MethodView, TablesView
from acp_codegen.targets.go.views import PackageView
from acp_codegen.targets.kit.scaffold import DEFAULT_PROTOCOL, starter

TEMPLATE = "scaffold.go.jinja"
"""The starter template, one for every edition: the blocks that differ follow how the edition
answers a prompt (`insertion`), never the version's name."""
STARTER_METHODS = {
    PromptAnswer.COMPLETION: {
        "agent": ("initialize", "session/new", "session/prompt"),
        "client": (
            "initialize",
            "session/new",
            "session/prompt",
            "session/update",
            "session/request_permission",
            "fs/read_text_file",
        ),
    },
    PromptAnswer.INSERTION: {
        # The whole session baseline: session/list and session/close are the SDK's.
        "agent": ("initialize", "session/new", "session/prompt", "session/resume"),
        "client": (  # v2 has no fs methods
            "initialize",
            "session/new",
            "session/prompt",
            "session/update",
            "session/request_permission",
        ),
    },
}
"""The methods each starter implements or calls, by how the edition answers a prompt (on
completion, v1: the handler is the turn; at insertion, v2: the handler is the foreground work):
each must be in the edition's method table."""


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = DEFAULT_PROTOCOL
) -> str:
    """The starter program for `role_name` ("agent" or "client")."""
    s = starter(spec, role_name, unstable=unstable, protocol=protocol, lang="go")
    methods = STARTER_METHODS[s.answer]
    view = PackageView(s.edition)
    tables = TablesView(s.edition, view)
    by_name = {m.method.name: m for m in tables.methods}
    missing = [name for name in methods[role_name] if name not in by_name]
    if missing:
        raise GenerationError(
            f"{s.edition.source}: the Go starter {role_name} needs {', '.join(missing)}"
        )
    package = protocol  # the import name of the edition's package in the starter
    return (
        template_environment()
        .get_template(TEMPLATE)
        .render(
            insertion=s.answer is PromptAnswer.INSERTION,
            role=role_name,
            life=s.lifecycle,
            package=package,
            command=s.command,
            edition=s.edition,
            package_path=f"{MODULE}/{s.edition.key}",
            module=MODULE,
            m={name: _signature(by_name[name], view, package) for name in methods[role_name]},
        )
    )


def _signature(method: MethodView, view: PackageView, package: str) -> dict[str, str]:
    """A method's Go name and its params and result types, qualified by the edition's package."""
    m = method.method
    return {
        "name": method.name,
        "params": f"{package}.{view.go(m.params)}" if m.params else "",
        "result": f"{package}.{view.go(m.result)}" if m.result else "",
    }
