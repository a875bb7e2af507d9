"""The one jinja2 set-up every template of the generator is rendered with: `StrictUndefined` (a
missing value is an error, never an empty string), no autoescaping (the output is code and
Markdown, not HTML), block tags that leave no blank lines behind, and one jinja test per IR node
class, named by rule (`{% if t is null_type %}`, `{% if d is tagged_union %}`). A target adds its
own filters (its spellings: `gostr`, `pyrepr`, …) and globals as data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import jinja2

from acp_codegen import ir
from acp_codegen.words import snake

_NODE_CLASSES: tuple[type, ...] = (
    *(ir.Primitive, ir.Const, ir.InlineEnum, ir.Array, ir.Map, ir.Ref, ir.AnyValue),
    *(ir.NullType, ir.Nullable, ir.UnionOf, ir.Struct, ir.Enumeration, ir.TaggedUnion, ir.Alias),
)


def _is_instance(node: object, cls: type) -> bool:
    return isinstance(node, cls)


IR_NODE_TESTS: dict[str, Callable[..., bool]] = {
    snake(c.__name__): partial(_is_instance, cls=c) for c in _NODE_CLASSES
}


def template_environment(
    folder: Path,
    filters: Mapping[str, Any] | None = None,
    globals: Mapping[str, Any] | None = None,
) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.do"],
    )
    env.tests.update(IR_NODE_TESTS)
    env.filters.update(filters or {})
    env.globals.update(globals or {})
    return env
