"""`acp-codegen scaffold agent|client --lang go`: not yet (issue 27). A Go starter would
implement the generated `Agent` or `Client` interface over the runtime's connection and run
against the other targets' starters; until it is written and tested, the command says so in
one line instead of writing a starter nothing has run."""

from __future__ import annotations

from acp_codegen.ir import Specification
from acp_codegen.problems import GenerationError


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = "v1"
) -> str:
    """Refuses, naming what to use instead."""
    raise GenerationError(
        f"scaffold --lang go: there is no Go starter {role_name} yet; implement the "
        f"{protocol} package's {role_name.capitalize()} interface in generated/go "
        "(docs/go-target.md), or use --lang python or --lang typescript"
    )
