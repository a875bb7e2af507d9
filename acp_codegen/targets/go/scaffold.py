"""`acp-codegen scaffold agent|client --lang go`: not yet. A Go starter implements the typed
`Agent`/`Client` interfaces over the Go runtime's connection, which the Go target does not write
yet (issue 27); until then the command says so in one line instead of writing a starter that
cannot run."""

from __future__ import annotations

from acp_codegen.ir import Specification
from acp_codegen.problems import GenerationError


def render_scaffold(
    spec: Specification, role_name: str, *, unstable: bool, protocol: str = "v1"
) -> str:
    """Refuses: the Go target has types, decoders and tables, not yet a runtime to serve them."""
    raise GenerationError(
        f"scaffold --lang go: the Go module has no runtime yet to run a starter {role_name} on "
        "(its types, decoders and method tables are in generated/go); use --lang python or "
        "--lang typescript"
    )
