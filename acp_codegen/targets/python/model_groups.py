"""How the Python target splits an edition's models into modules built on first use.

Importing a module of pydantic classes builds each class (v1's 190 took two thirds of importing
the agent side), while a session uses about 60 % of them. So an edition's definitions are grouped
by the methods whose params and results reach them, and `models` is a facade that imports a group
the first time one of its names is looked up:

- a definition that one method alone reaches lives in that method's group, named by the handler
  rule (`session/update` → `session_update`);
- one that several methods reach lives in `shared`;
- one that no method reaches lives in `unreferenced`.

The groups import each other without a cycle: when A refers to B, every method reaching A reaches
B, so B sits in A's own group or in `shared`, and `shared` refers only to itself (`unreferenced`
may refer to any group, and nothing refers to it). A cycle of definitions therefore never spans two
groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.python.roles import handler_name

SHARED = "shared"
UNREFERENCED = "unreferenced"


@dataclass(frozen=True, slots=True)
class ModelGroup:
    """One module of definitions under `<edition>/_models/`."""

    module: str
    methods: tuple[str, ...]
    """The one method whose types these are; empty for `shared` and `unreferenced`."""
    definitions: tuple[ir.Definition, ...]
    """In a valid order (the edition's order, restricted to the group)."""
    imports: tuple[tuple[str, tuple[str, ...]], ...]
    """(group module, names) this group's definitions refer to, by module."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.definitions)

    @property
    def summary(self) -> str:
        """Whose types these are, completing "ACP v1 models (…) …"."""
        if self.methods:
            return "of " + ", ".join(f"`{m}`" for m in self.methods) + " alone"
        return "that several methods use" if self.module == SHARED else "that no method uses"


def model_groups(edition: ir.Edition, order: Iterable[ir.Definition]) -> tuple[ModelGroup, ...]:
    """The edition's definitions (given in a valid order) as groups, sorted by module name."""
    ordered = tuple(order)
    by_name = {d.name: d for d in ordered}
    group_of = _group_of(edition, by_name)
    members: dict[str, list[ir.Definition]] = {}
    for definition in ordered:
        members.setdefault(group_of[definition.name], []).append(definition)
    groups = []
    for module in sorted(members):
        imported: dict[str, set[str]] = {}
        for definition in members[module]:
            for dep in ir.dependencies(definition):
                if group_of[dep] != module:
                    imported.setdefault(group_of[dep], set()).add(dep)
        methods = tuple(sorted({m.name for m in edition.methods if handler_name(m.name) == module}))
        groups.append(
            ModelGroup(
                module=module,
                methods=methods,
                definitions=tuple(members[module]),
                imports=tuple((g, tuple(sorted(names))) for g, names in sorted(imported.items())),
            )
        )
    return tuple(groups)


def _group_of(edition: ir.Edition, by_name: Mapping[str, ir.Definition]) -> dict[str, str]:
    reached: dict[str, set[str]] = {name: set() for name in by_name}
    modules: dict[str, str] = {}
    for method in edition.methods:
        module = handler_name(method.name)
        owner = modules.setdefault(module, method.name)
        if module in (SHARED, UNREFERENCED) or owner != method.name:
            taken = f"method {owner!r}'s" if owner != method.name else f"the {module} types'"
            raise GenerationError(
                f"{edition.source}: the models of method {method.name!r} would go in module "
                f"_models/{module}.py, which is {taken} already"
            )
        roots = [method.params] + ([method.result] if method.result else [])
        for name in _closure(roots, by_name):
            reached[name].add(method.name)
    return {
        name: (
            UNREFERENCED
            if not methods
            else SHARED if len(methods) > 1 else handler_name(next(iter(methods)))
        )
        for name, methods in reached.items()
    }


def _closure(roots: Iterable[str], by_name: Mapping[str, ir.Definition]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack += ir.dependencies(by_name[name])
    return seen
