"""`acp_protocol.<v>.builders` covers the IR: a typed constructor for every tagged variant of every
tagged union, struct or not, in every edition (the generator tier: it reads the IR)."""

from __future__ import annotations

import importlib
import typing
from types import ModuleType
from typing import Any

import pytest

from acp_codegen import ir, pipeline

EDITIONS = ("v1", "v1/unstable", "v2", "v2/unstable")
SPEC = pipeline.load_specification(pipeline.ROOT)


def edition(key: str) -> ir.Edition:
    [found] = [e for e in SPEC.editions if e.key == key]
    return found


def constructors(namespace: type, path: str = "") -> dict[str, Any]:
    """Every constructor under a builders namespace, by its dotted path."""
    found: dict[str, Any] = {}
    for name, member in vars(namespace).items():
        if isinstance(member, staticmethod):
            found[f"{path}{name}"] = member.__func__
        elif isinstance(member, type):
            found.update(constructors(member, f"{path}{name}."))
    return found


def built_models(module: ModuleType) -> set[str]:
    """The model class names the builders of a module return."""
    names = set()
    for root in module.__all__:
        for function in constructors(getattr(module, root)).values():
            names.add(typing.get_type_hints(function, vars(module))["return"].__name__)
    return names


def struct_variants(edition: ir.Edition) -> set[str]:
    """The struct behind every tagged variant of every tagged union, aliases followed to the
    structs they unite: what must have a builder."""
    by_name = {d.name: d for d in edition.definitions}
    wanted = set()
    for union in (d for d in edition.definitions if isinstance(d, ir.TaggedUnion)):
        for variant in union.variants:
            target = by_name[variant.type.name]
            if isinstance(target, ir.Struct):
                wanted.add(target.name)
            elif isinstance(target, ir.Alias) and isinstance(target.target, ir.UnionOf):
                wanted.update(o.name for o in target.target.options if isinstance(o, ir.Ref))
    return wanted


@pytest.mark.parametrize("key", EDITIONS)
def test_every_tagged_variant_of_every_union_has_a_builder(key: str) -> None:
    module = importlib.import_module("acp_protocol." + key.replace("/", ".") + ".builders")
    assert built_models(module) == struct_variants(edition(key))
