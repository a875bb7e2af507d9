"""An edition's protocol surface as the Go templates need it: each method with its Go name (the
constant `Method<Name>`), and each role's methods by those names.

Roles, turn rules, error codes and behaviour are IR data the templates write as Go values
(`acp.Role`, `acp.Behaviour`), so the runtime reads them and never asks which edition it
speaks.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go.names import go_name, method_names
from acp_codegen.targets.go.views import PackageView


@dataclass(frozen=True, slots=True)
class MethodView:
    method: ir.Method
    name: str
    """`SessionPrompt`: the method's Go name (its constant is `Method` + this)."""

    @property
    def constant(self) -> str:
        return "Method" + self.name

    @property
    def doc(self) -> str:
        summary = f"{self.constant} is the {self.method.kind.value} {self.method.name}."
        return f"{summary}\n\n{self.method.doc}" if self.method.doc.strip() else summary


class TablesView:
    """The method table, the roles and the error codes of one edition."""

    def __init__(self, edition: ir.Edition, view: PackageView) -> None:
        self.edition = edition
        names = method_names(edition)
        self.methods = [MethodView(m, names[m.key]) for m in edition.methods]
        self.by_key = {m.method.key: m for m in self.methods}
        taken = view.package_names()
        for m in self.methods:
            if m.constant in taken:
                raise GenerationError(
                    f"{edition.source}: the Go name {m.constant!r} is both {taken[m.constant]} "
                    f"and the method {m.method.name!r}"
                )
        self.error_codes = [(go_name(e.name), e) for e in edition.error_codes]

    def role_methods(self, role: ir.Role, kind: str) -> list[MethodView]:
        methods = role.requests if kind == "requests" else role.notifications
        return [self.by_key[m.key] for m in methods]
