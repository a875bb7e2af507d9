"""The state of lowering one schema document: its `$defs`, the definitions made so far, problems.

Problems are values (`SchemaProblem`: file, JSON pointer, message), collected across the whole
document so that one run reports every one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from acp_codegen.ir import Definition, Stability
from acp_codegen.lowering.naming import OVERRIDES, Overrides
from acp_codegen.lowering.nodes import JsonObject
from acp_codegen.problems import SchemaProblem, pointer_join


@dataclass(slots=True)
class Lowering:
    defs: JsonObject
    source: str
    stability_of: Callable[[str], Stability]
    overrides: Overrides = field(default_factory=lambda: OVERRIDES)
    definitions: dict[str, Definition] = field(default_factory=dict)
    problems: list[SchemaProblem] = field(default_factory=list)
    _claims: dict[str, str] = field(default_factory=dict)

    @property
    def def_names(self) -> frozenset[str]:
        return frozenset(self.defs)

    def problem(self, pointer: str, message: str) -> None:
        self.problems.append(SchemaProblem(self.source, pointer, message))

    def claim(self, name: str, pointer: str) -> bool:
        """Reserve `name` for the node at `pointer`; a second claim is a problem (False)."""
        holder = self._claims.get(name)
        if holder is not None and holder != pointer:
            self.problem(pointer, f"the name {name!r} given by rule is already {holder!r}'s")
            return False
        if holder is None and name in self.defs and pointer != def_pointer(name):
            self.problem(pointer, f"the name {name!r} given by rule is a `$defs` name")
            return False
        self._claims[name] = pointer
        return True

    def add(self, definition: Definition) -> None:
        self.definitions[definition.name] = definition


def def_pointer(name: str) -> str:
    return pointer_join("/$defs", name)
