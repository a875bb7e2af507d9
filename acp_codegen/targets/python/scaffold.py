"""`acp-codegen scaffold agent|client [--unstable] [--protocol v2] --out FILE`: a runnable starter
implementation.

The starter subclasses the generated base class of the role (`acp_protocol.v1.agent.Agent`, …)
with every handler's real signature and schema docstring; a few bodies show the patterns (checking
for cancellation, streaming `session/update`, a nested request), the rest call `super()`, which
answers `-32601`. It is the user's file: written once (`acp_codegen.targets.write_scaffold`), never
regenerated, never overwritten unless `force`. The edition, the role and the command come from
the kit (`kit.scaffold.starter`).
"""

from __future__ import annotations

from acp_codegen.ir import PromptAnswer, Specification
from acp_codegen.targets.kit.scaffold import DEFAULT_PROTOCOL, starter
from acp_codegen.targets.python import PACKAGE, template_environment
from acp_codegen.targets.python.format import format_source
from acp_codegen.targets.python.roles import role_views

TEMPLATE = "scaffold.py.jinja"
"""The starter template, one for every edition: the blocks that differ follow how the edition
answers a prompt (`insertion`), on completion (v1: the handler is the turn) or at insertion (v2:
the handler is the foreground work, the client follows a session view); never the version's
name."""


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = DEFAULT_PROTOCOL
) -> str:
    """The starter module for `role_name` ("agent" or "client"), formatted."""
    s = starter(spec, role_name, unstable=unstable, protocol=protocol, lang=None)
    roles = {role.name: role for role in role_views(s.edition)}
    source = (
        template_environment()
        .get_template(TEMPLATE)
        .render(
            insertion=s.answer is PromptAnswer.INSERTION,
            role=roles[role_name],
            package=".".join([PACKAGE, *s.edition.key.split("/")]),
            command=s.command,
            protocol_version=s.edition.protocol_version,
            runtime_package=f"{PACKAGE}.runtime",
            lifecycle=s.lifecycle,
        )
    )
    return format_source(source)
