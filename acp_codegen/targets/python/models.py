"""The models of one edition, as the templates need them: the groups of definitions (one module
each, see `model_groups`), each in a valid order, and each field's Python attribute, annotation
parts and default.

Python evaluates a class's bases, a type alias's value and (without `from __future__ import
annotations`, which makes pydantic evaluate every annotation string at import) every field
annotation when the module runs. So definitions are ordered dependencies first, and a group
imports what it uses from other groups; where a cycle leaves a field referring to a later
definition of its own group, that annotation is written as a string, which pydantic resolves when
the model is first built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.targets.python.model_groups import ModelGroup, model_groups
from acp_codegen.targets.python.types import attribute_name


@dataclass(frozen=True, slots=True)
class FieldView:
    """One field as the template renders it."""

    field: ir.Field
    attribute: str
    type: ir.TypeExpr
    """The annotation's type: the field's own, made nullable when the field may be absent and
    has no default (absent is written as the default `None`; `to_wire` leaves unset fields
    out)."""
    forward: bool
    """Refers to a definition written later in its group's module: the annotation is quoted."""
    default: str
    """`required`, `tag` (a required single literal, its own default), `none`, `value` (a
    literal), `model` (a struct built from a literal) or `factory` (a fresh copy of a list or
    object literal)."""
    default_model: str = ""

    @property
    def alias(self) -> str | None:
        return None if self.attribute == self.field.wire_name else self.field.wire_name

    @property
    def extra(self) -> dict[str, bool]:
        """The `x-deserialize-*` policies, read by the runtime's `ProtocolModel`."""
        policy = self.field.policy
        flags = {
            "x-deserialize-default-on-error": policy.default_on_error,
            "x-deserialize-skip-invalid-items": policy.skip_invalid_items,
            "x-deserialize-default-on-null": policy.default_on_null,
        }
        return {key: True for key, on in flags.items() if on}


@dataclass(frozen=True, slots=True)
class ModelsView:
    edition: ir.Edition
    groups: tuple[ModelGroup, ...]
    fields: dict[str, tuple[FieldView, ...]]

    def fields_of(self, struct: ir.Struct) -> tuple[FieldView, ...]:
        return self.fields[struct.name]

    def base_classes(self, struct: ir.Struct) -> str:
        return ", ".join(struct.bases) if struct.bases else "ProtocolModel"


def models_view(edition: ir.Edition) -> ModelsView:
    groups = model_groups(edition, _ordered(edition))
    # A field's reference is forward when it names a later definition of the same group (one
    # from another group is imported before the module's first definition).
    position = {d.name: (g.module, i) for g in groups for i, d in enumerate(g.definitions)}
    structs = {d.name: d for g in groups for d in g.definitions if isinstance(d, ir.Struct)}
    fields = {
        d.name: tuple(_field_view(f, position[d.name], position, structs) for f in d.fields)
        for d in structs.values()
    }
    return ModelsView(edition, groups, fields)


def _field_view(
    field: ir.Field,
    at: tuple[str, int],
    position: dict[str, tuple[str, int]],
    structs: dict[str, ir.Struct],
) -> FieldView:
    module, index = at
    forward = any(
        position[name][0] == module and position[name][1] > index
        for name in ir.referenced_names(field.type)
    )
    type_ = field.type
    default, model = _default_kind(field, structs)
    if default == "none" and not isinstance(type_, ir.Nullable | ir.NullType):
        type_ = ir.Nullable(type_)
    return FieldView(field, attribute_name(field.wire_name), type_, forward, default, model)


def _default_kind(field: ir.Field, structs: dict[str, ir.Struct]) -> tuple[str, str]:
    if field.required:
        # A required single literal (a union's tag, `jsonrpc: "2.0"`) defaults to its value:
        # `ContentBlockText(text="hi")`; the runtime writes it even when defaulted.
        return ("tag" if isinstance(field.type, ir.Const) else "required"), ""
    value: Any = field.default
    if not field.has_default or value is None:
        return "none", ""
    if not isinstance(value, dict | list):
        return "value", ""
    inner = field.type.inner if isinstance(field.type, ir.Nullable) else field.type
    if isinstance(value, dict) and isinstance(inner, ir.Ref) and inner.name in structs:
        return "model", inner.name
    return "factory", ""


def _ordered(edition: ir.Edition) -> list[ir.Definition]:
    """Dependencies first (sorted by name where free), bases and alias values strictly."""
    by_name = {d.name: d for d in edition.definitions}
    order: list[ir.Definition] = []
    state: dict[str, str] = {}

    def visit(name: str, hard: bool) -> None:
        mark = state.get(name)
        if mark == "done":
            return
        if mark == "active":
            if hard:
                raise GenerationError(
                    f"{edition.source}: {name!r} is defined in terms of itself (a cycle of "
                    "bases, aliases or union variants), which Python cannot evaluate"
                )
            return
        state[name] = "active"
        definition = by_name[name]
        for dep in _hard_dependencies(definition):
            visit(dep, True)
        for dep in ir.dependencies(definition):
            # A soft edge is followed only when that cannot close a cycle of hard edges.
            if state.get(dep) is None and not (hard_closure(dep) & active()):
                visit(dep, False)
        state[name] = "done"
        order.append(definition)

    def active() -> set[str]:
        return {n for n, mark in state.items() if mark == "active"}

    def hard_closure(name: str) -> set[str]:
        seen: set[str] = set()
        stack = list(_hard_dependencies(by_name[name]))
        while stack:
            dep = stack.pop()
            if dep not in seen:
                seen.add(dep)
                stack += _hard_dependencies(by_name[dep])
        return seen

    for name in sorted(by_name):
        visit(name, False)
    return order


def _hard_dependencies(definition: ir.Definition) -> tuple[str, ...]:
    if isinstance(definition, ir.Struct):
        return definition.bases
    return ir.dependencies(definition)
