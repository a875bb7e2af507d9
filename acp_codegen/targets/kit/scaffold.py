"""The preamble of every starter (`acp-codegen scaffold agent|client`): which edition it is
written from, which role it plays, how the edition answers a prompt, and the command that wrote
it (named in the starter's header).

Each target's `render_scaffold(spec, role, *, unstable, protocol)` starts with `starter(…)` and
goes on with what is its own: its template, its names, the methods its starter needs. The
template follows how the edition answers a prompt (`answer`), never the version's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import GenerationError

DEFAULT_PROTOCOL = "v1"
"""The protocol a starter speaks unless `--protocol` says otherwise."""


@dataclass(frozen=True, slots=True)
class Starter:
    edition: ir.Edition
    role: ir.Role
    command: str
    """`acp-codegen scaffold agent --lang go --protocol v2`: how the starter was written."""

    @property
    def lifecycle(self) -> ir.PromptLifecycle | None:
        return self.edition.behaviour.lifecycle

    @property
    def answer(self) -> ir.PromptAnswer:
        """When the edition answers a prompt: on completion (v1: the handler is the turn; also
        an edition without a prompt lifecycle) or at insertion (v2: the handler is the
        foreground work the SDK reports on)."""
        life = self.lifecycle
        return ir.PromptAnswer.COMPLETION if life is None else life.answer


def starter(
    spec: ir.Specification,
    role_name: str,
    *,
    unstable: bool,
    protocol: str,
    lang: str | None,
) -> Starter:
    """The starter of `role_name` ("agent" or "client") from `spec`'s `protocol` edition (the
    unstable one with `unstable`); `lang` is the `--lang` the command names (None: the default)."""
    channel = ir.Stability.UNSTABLE if unstable else ir.Stability.STABLE
    edition = spec.edition(protocol, channel)
    if edition is None:
        raise GenerationError(
            f"{spec.origin} pins no {channel.value} {protocol} schema to scaffold from"
        )
    roles = {role.name: role for role in edition.roles}
    if role_name not in roles:
        raise GenerationError(
            f"unknown role {role_name!r}; choose one of {', '.join(sorted(roles))}"
        )
    words = ["acp-codegen scaffold", role_name, *([] if lang is None else ["--lang", lang])]
    words += ["--unstable"] if unstable else []
    words += [] if protocol == DEFAULT_PROTOCOL else ["--protocol", protocol]
    return Starter(edition, roles[role_name], " ".join(words))
