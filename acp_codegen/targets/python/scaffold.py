"""`acp-codegen scaffold agent|client [--unstable] [--protocol v2] --out FILE`: a runnable starter
implementation.

The starter subclasses the generated base class of the role (`acp_protocol.v1.agent.Agent`, …)
with every handler's real signature and schema docstring; a few bodies show the patterns (checking
for cancellation, streaming `session/update`, a nested request), the rest call `super()`, which
answers `-32601`. It is the user's file: written once (`acp_codegen.targets.write_scaffold`), never
regenerated, never overwritten unless `force`.
"""

from __future__ import annotations

from acp_codegen.ir import PromptAnswer, Specification, Stability
from acp_codegen.problems import GenerationError
from acp_codegen.targets.python import PACKAGE, template_environment
from acp_codegen.targets.python.format import format_source
from acp_codegen.targets.python.roles import role_views

STARTERS = {
    PromptAnswer.COMPLETION: "scaffold.py.jinja",
    PromptAnswer.INSERTION: "scaffold_v2.py.jinja",
    None: "scaffold.py.jinja",
}
"""The starter template by how the edition answers a prompt: on completion (v1: the handler is
the turn), at insertion (v2: the handler is the foreground work, the client follows a session
view). An edition without a prompt lifecycle gets the first."""


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = "v1"
) -> str:
    """The starter module for `role_name` ("agent" or "client"), formatted."""
    channel = Stability.UNSTABLE if unstable else Stability.STABLE
    edition = spec.edition(protocol, channel)
    if edition is None:
        raise GenerationError(
            f"{spec.origin} pins no {channel.value} {protocol} schema to scaffold from"
        )
    roles = {role.name: role for role in role_views(edition)}
    if role_name not in roles:
        raise GenerationError(f"unknown role {role_name!r}; choose one of {sorted(roles)}")
    package = ".".join([PACKAGE, *edition.key.split("/")])
    flags = [
        *(["--unstable"] if unstable else []),
        *([] if protocol == "v1" else ["--protocol", protocol]),
    ]
    command = " ".join(["acp-codegen scaffold", role_name, *flags])
    lifecycle = edition.behaviour.lifecycle
    answer = None if lifecycle is None else lifecycle.answer
    template = template_environment().get_template(STARTERS[answer])
    source = template.render(
        role=roles[role_name],
        package=package,
        command=command,
        protocol_version=edition.protocol_version,
        runtime_package=f"{PACKAGE}.runtime",
        lifecycle=lifecycle,
    )
    return format_source(source)
