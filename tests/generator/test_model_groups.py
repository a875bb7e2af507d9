"""Python target: which module of `_models/` each definition goes in, from small inline schemas,
and the facade that builds a group on first use."""

from __future__ import annotations

import sys
from collections.abc import Callable
from graphlib import TopologicalSorter
from types import ModuleType
from typing import Any

import pytest

from acp_codegen import ir
from acp_codegen.lowering import lower_edition
from acp_codegen.pipeline import load_specification
from acp_codegen.problems import GenerationError
from acp_codegen.targets.python.models import models_view

Models = Callable[[dict[str, Any]], ModuleType]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": sorted(props)}


def _method(name: str, side: str = "agent", **props: Any) -> dict[str, Any]:
    return {**_obj(**props), "x-method": name, "x-side": side}


# `prompt` and `update` both use ContentBlock; only `prompt` uses StopReason; Orphan is used by no
# method; Tree refers to itself through Branch (a cycle), and only `update` uses it.
SCHEMA: dict[str, Any] = {
    "PromptRequest": _method("session/prompt", prompt={"type": "array", "items": _ref("Block")}),
    "PromptResponse": _method("session/prompt", stopReason=_ref("StopReason")),
    "UpdateNotification": _method(
        "session/update", "client", content=_ref("Block"), tree=_ref("Tree")
    ),
    "Block": _obj(text={"type": "string"}),
    "StopReason": {"type": "string", "enum": ["end_turn", "cancelled"]},
    "Tree": _obj(branches={"type": "array", "items": _ref("Branch")}),
    "Branch": _obj(leaf={"type": "string"}, tree=_ref("Tree")),
    "Orphan": _obj(block=_ref("Block"), reason=_ref("StopReason")),
}


def _lower(defs: dict[str, Any]) -> ir.Edition:
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    return lower_edition(
        doc, protocol="v1", channel=ir.Stability.STABLE, source="inline.json", sha256="0"
    )


def _modules(edition: ir.Edition) -> dict[str, set[str]]:
    return {g.module: set(g.names) for g in models_view(edition).groups}


def test_a_definition_one_method_alone_reaches_goes_in_that_methods_module() -> None:
    modules = _modules(_lower(SCHEMA))
    assert modules["session_prompt"] == {"PromptRequest", "PromptResponse", "StopReason"}
    assert modules["session_update"] == {"UpdateNotification", "Tree", "Branch"}


def test_a_definition_several_methods_reach_goes_in_shared() -> None:
    assert _modules(_lower(SCHEMA))["shared"] == {"Block"}


def test_a_definition_no_method_reaches_goes_in_unreferenced() -> None:
    assert _modules(_lower(SCHEMA))["unreferenced"] == {"Orphan"}


def test_a_group_imports_what_it_uses_from_other_groups() -> None:
    imports = {g.module: dict(g.imports) for g in models_view(_lower(SCHEMA)).groups}
    assert imports["session_prompt"] == {"shared": ("Block",)}
    assert imports["unreferenced"] == {"session_prompt": ("StopReason",), "shared": ("Block",)}
    assert imports["shared"] == {}


def test_the_groups_of_every_pinned_edition_import_each_other_without_a_cycle() -> None:
    """Python cannot import two modules that import each other before either has run."""
    for edition in load_specification().editions:
        groups = models_view(edition).groups
        graph = {g.module: {module for module, _ in g.imports} for g in groups}
        order = list(TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
        assert sorted(order) == sorted(graph), edition.key
        placed = [name for g in groups for name in g.names]
        assert sorted(placed) == sorted(d.name for d in edition.definitions), edition.key


def test_a_method_whose_module_would_be_shared_is_an_error() -> None:
    defs = {"SharedRequest": _method("shared"), "SharedResponse": _method("shared")}
    with pytest.raises(
        GenerationError, match=r"_models/shared\.py, which is the shared types' already"
    ):
        models_view(_lower(defs))


def test_a_cycle_across_the_facade_validates_after_first_use(models_from: Models) -> None:
    """Tree ↔ Branch is a cycle inside `session_update`; it uses Block from `shared`."""
    models = models_from(SCHEMA)
    package = models.__name__.rsplit(".", 1)[0]
    assert not any(name.startswith(f"{package}._models.") for name in sys.modules)
    update = models.UpdateNotification.model_validate(
        {"content": {"text": "hi"}, "tree": {"branches": [{"leaf": "a", "tree": {"branches": []}}]}}
    )
    assert update.tree.branches[0].tree.branches == []
    assert isinstance(update.content, models.Block)
    loaded = sorted(name for name in sys.modules if name.startswith(f"{package}._models."))
    assert loaded == [f"{package}._models.session_update", f"{package}._models.shared"]


def test_the_facade_lists_every_name_and_refuses_an_unknown_one(models_from: Models) -> None:
    models = models_from(SCHEMA)
    assert sorted(models.__all__) == sorted(SCHEMA)
    assert set(SCHEMA) <= set(dir(models))
    with pytest.raises(AttributeError, match="has no attribute 'Blocks'"):
        models.Blocks  # noqa: B018
