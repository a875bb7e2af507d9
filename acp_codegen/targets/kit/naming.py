"""Method names in a target, and the one rule that says when two of them clash.

Every target names a method by its own spelling of the method name (`session/prompt` →
`session_prompt`, `sessionPrompt`, `SessionPrompt`); where an edition has a request and a
notification of one name (`mcp/message` with `x-side: both` in 1.5.x schemas, the unstable
`proxy/successor`), the notification's name gets the target's notification suffix. The target
gives both, and the names its runtime keeps for itself, as a `MethodSpelling`.

The clash rule, one for every target: two methods of one edition that map to one name clash, and
so does a method that maps to a reserved name. Per edition, not per role: two methods of one role
with one name would be one handler (the case the rule is for), and the names are edition-wide
too: Go declares a package-level constant per method (`MethodSessionPrompt`), the method tables
carry each method's name whichever side handles it, a `both` method belongs to two roles and a
`protocol` one to none, and a proxy holds the handler of one role beside the peer of the other.
A rule per role would let the Go target write two constants of one name; the rule per edition
includes it. Clashes are problems (`SchemaProblem`), each located at the later method's params
definition, every edition's reported together (`check`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import SchemaProblem, SchemaProblems, pointer_join

MethodKey = tuple[str, ir.MethodKind]
"""A method by (name, kind): a request and a notification of one name are two methods."""


@dataclass(frozen=True, slots=True)
class MethodSpelling:
    """How one target names methods."""

    language: str
    """The target's language, for the problems (`Go`)."""
    what: str
    """What the name is in that language, for the problems (`name`, `handler`)."""
    spell: Callable[[str], str]
    """A method name as the target spells it (`session/prompt` → `sessionPrompt`)."""
    notification_suffix: str
    """Added to a notification's name where a request has the same name (`Notification`)."""
    reserved: frozenset[str] = frozenset()
    """Names the target's runtime keeps for itself (`extension_request`): no method takes one."""

    def names(self, edition: ir.Edition) -> dict[MethodKey, str]:
        """The name of every method of `edition`; raises `SchemaProblems` on a clash."""
        names, problems = self._names(edition)
        if problems:
            raise SchemaProblems(problems)
        return names

    def problems(self, edition: ir.Edition) -> list[SchemaProblem]:
        """Every clash of `edition`'s method names (none: the names are free)."""
        return self._names(edition)[1]

    def check(self, spec: ir.Specification) -> None:
        """Raise `SchemaProblems` with the clashes of every edition, together."""
        problems = [p for edition in spec.editions for p in self.problems(edition)]
        if problems:
            raise SchemaProblems(problems)

    def _names(self, edition: ir.Edition) -> tuple[dict[MethodKey, str], list[SchemaProblem]]:
        requests = {m.name for m in edition.requests()}
        names: dict[MethodKey, str] = {}
        problems: list[SchemaProblem] = []
        seen: dict[str, str] = {}
        for method in sorted(edition.methods, key=lambda m: (m.name, m.kind.value)):
            suffixed = method.kind is ir.MethodKind.NOTIFICATION and method.name in requests
            name = self.spell(method.name) + (self.notification_suffix if suffixed else "")
            names[method.key] = name
            where = pointer_join("/$defs", method.params)
            spelled = f"the {self.language} {self.what} {name!r}"
            if name in self.reserved:
                message = f"the method {method.name!r} maps to {spelled}, which the runtime keeps"
                problems.append(SchemaProblem(edition.source, where, message))
            elif name in seen:
                message = f"methods {seen[name]!r} and {method.name!r} both map to {spelled}"
                problems.append(SchemaProblem(edition.source, where, message))
            seen.setdefault(name, method.name)
        return {m.key: names[m.key] for m in edition.methods}, problems
