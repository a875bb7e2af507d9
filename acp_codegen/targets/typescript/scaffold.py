"""`acp-codegen scaffold agent|client --lang typescript [--protocol v2]`: a runnable starter in
TypeScript.

The starter implements the generated role interface (`acp-protocol-sdk/v1`'s `Agent`, …) with
every handler's real signature and the schema's doc comments; a few bodies show the patterns
(streaming `session/update`, the request's `signal`, a nested request, serving files only under
the working directory), the rest answer -32601. It is the user's file: written once, never
regenerated.

The one starter template's blocks follow how the edition answers a prompt
(`PromptLifecycle.answer`): on completion (v1: the prompt handler is the turn) or at insertion (v2:
the prompt handler is the foreground work the SDK reports on; the client follows a session view).
The edition, the role and the command come from the kit (`kit.scaffold.starter`).
"""

from __future__ import annotations

from acp_codegen.ir import PromptAnswer, Specification
from acp_codegen.targets.kit.roles import role_views
from acp_codegen.targets.kit.scaffold import DEFAULT_PROTOCOL, starter
from acp_codegen.targets.typescript import PACKAGE, template_environment
from acp_codegen.targets.typescript.behaviour import behaviour_view
from acp_codegen.targets.typescript.names import HANDLERS

TEMPLATE = "scaffold.ts.jinja"
"""The starter template, one for every edition: the blocks that differ follow how the edition
answers a prompt (`insertion`), never the version's name."""


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = DEFAULT_PROTOCOL
) -> str:
    """The starter module for `role_name` ("agent" or "client")."""
    s = starter(spec, role_name, unstable=unstable, protocol=protocol, lang="typescript")
    names = HANDLERS.names(s.edition)
    roles = {role.name: role for role in role_views(s.edition, names)}
    return (
        template_environment()
        .get_template(TEMPLATE)
        .render(
            insertion=s.answer is PromptAnswer.INSERTION,
            role=roles[role_name],
            package=PACKAGE,
            edition=s.edition,
            edition_key=s.edition.key,
            command=s.command,
            behaviour=behaviour_view(s.edition, names),
        )
    )
