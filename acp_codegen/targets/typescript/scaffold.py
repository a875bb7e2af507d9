"""`acp-codegen scaffold agent|client --lang typescript`: a runnable starter in TypeScript.

The starter implements the generated role interface (`acp-protocol-sdk/v1`'s `Agent`, …) with
every handler's real signature and the schema's doc comments; a few bodies show the patterns
(streaming `session/update`, the request's `signal`, a nested request, serving files only under
the working directory), the rest answer -32601. It is the user's file: written once, never
regenerated.
"""

from __future__ import annotations

from acp_codegen.ir import Specification, Stability
from acp_codegen.problems import GenerationError
from acp_codegen.targets.typescript import PACKAGE, template_environment
from acp_codegen.targets.typescript.names import handler_names
from acp_codegen.targets.typescript.roles import role_views

SUFFIX = ".ts"


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
    roles = {role.name: role for role in role_views(edition, handler_names(edition))}
    if role_name not in roles:
        raise GenerationError(f"unknown role {role_name!r}; choose one of {sorted(roles)}")
    flags = ["--unstable"] if unstable else []
    command = " ".join(["acp-codegen scaffold", role_name, "--lang typescript", *flags])
    return (
        template_environment()
        .get_template("scaffold.ts.jinja")
        .render(role=roles[role_name], package=PACKAGE, edition_key=edition.key, command=command)
    )
