"""`acp-codegen scaffold agent|client --lang typescript [--protocol v2]`: a runnable starter in
TypeScript.

The starter implements the generated role interface (`acp-protocol-sdk/v1`'s `Agent`, …) with
every handler's real signature and the schema's doc comments; a few bodies show the patterns
(streaming `session/update`, the request's `signal`, a nested request, serving files only under
the working directory), the rest answer -32601. It is the user's file: written once, never
regenerated.

The template follows how the edition answers a prompt (`PromptLifecycle.answer`): on completion
(v1: the prompt handler is the turn) or at insertion (v2: the prompt handler is the foreground work
the SDK reports on; the client follows a session view).
"""

from __future__ import annotations

from acp_codegen.ir import PromptAnswer, Specification, Stability
from acp_codegen.problems import GenerationError
from acp_codegen.targets.typescript import PACKAGE, template_environment
from acp_codegen.targets.typescript.behaviour import behaviour_view
from acp_codegen.targets.typescript.names import handler_names
from acp_codegen.targets.typescript.roles import role_views

SUFFIX = ".ts"
STARTERS = {
    PromptAnswer.COMPLETION: "scaffold.ts.jinja",
    PromptAnswer.INSERTION: "scaffold_v2.ts.jinja",
    None: "scaffold.ts.jinja",
}
"""The starter template by how the edition answers a prompt; an edition without a prompt
lifecycle gets the first."""


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = "v1"
) -> str:
    """The starter module for `role_name` ("agent" or "client")."""
    channel = Stability.UNSTABLE if unstable else Stability.STABLE
    edition = spec.edition(protocol, channel)
    if edition is None:
        raise GenerationError(
            f"{spec.origin} pins no {channel.value} {protocol} schema to scaffold from"
        )
    names = handler_names(edition)
    roles = {role.name: role for role in role_views(edition, names)}
    if role_name not in roles:
        raise GenerationError(f"unknown role {role_name!r}; choose one of {sorted(roles)}")
    flags = [
        *(["--unstable"] if unstable else []),
        *([] if protocol == "v1" else ["--protocol", protocol]),
    ]
    command = " ".join(["acp-codegen scaffold", role_name, "--lang typescript", *flags])
    lifecycle = edition.behaviour.lifecycle
    template = template_environment().get_template(
        STARTERS[None if lifecycle is None else lifecycle.answer]
    )
    return template.render(
        role=roles[role_name],
        package=PACKAGE,
        edition=edition,
        edition_key=edition.key,
        command=command,
        behaviour=behaviour_view(edition, names),
    )
