"""Lowering of the schema of a property, an array item or an alias into a `TypeExpr`.

An inline object or object union gets a definition of its own, named by `naming.member_name`, and
the expression refers to it; everything else stays an expression.
"""

from __future__ import annotations

from typing import Any

from acp_codegen.ir import (
    AnyValue,
    Array,
    Const,
    Constraints,
    InlineEnum,
    Map,
    Nullable,
    NullType,
    Primitive,
    PrimitiveKind,
    Ref,
    TypeExpr,
    UnionOf,
)
from acp_codegen.lowering.context import Lowering
from acp_codegen.lowering.nodes import (
    ANNOTATIONS,
    PRIMITIVE_TYPES,
    branches,
    has_null_branch,
    is_null,
    is_object_like,
    ref_name,
    single_ref,
    union_keyword,
)
from acp_codegen.problems import pointer_join


def lower_type(ctx: Lowering, node: Any, pointer: str, hint: str) -> TypeExpr:
    """The type of `node`; `hint` names an inline definition made for it."""
    if node is True or node == {}:
        return AnyValue()
    if not isinstance(node, dict):
        ctx.problem(pointer, f"expected a schema object, found {type(node).__name__}")
        return AnyValue()
    if not node.keys() - ANNOTATIONS:
        return AnyValue()
    name = single_ref(node)
    if name is not None or "$ref" in node:
        return _ref(ctx, name or ref_name(node["$ref"]), node, pointer)
    kinds = node.get("type")
    if isinstance(kinds, list):
        return _type_list(ctx, node, kinds, pointer, hint)
    if union_keyword(node) is not None and "properties" not in node:
        return _union(ctx, node, pointer, hint)
    if "const" in node:
        return Const(node["const"])
    if isinstance(node.get("enum"), list):
        values = [v for v in node["enum"] if v is not None]
        inner = InlineEnum(tuple(values))
        return Nullable(inner) if len(values) < len(node["enum"]) else inner
    if kinds in PRIMITIVE_TYPES:
        encoding = node.get("contentEncoding")
        return Primitive(
            PrimitiveKind(kinds),
            node.get("format"),
            constraints_of(node),
            encoding if isinstance(encoding, str) else None,
        )
    if kinds == "array":
        items = lower_type(
            ctx, node.get("items", {}), pointer_join(pointer, "items"), hint + "Item"
        )
        return Array(items, constraints_of(node))
    if kinds == "null":
        return NullType()
    if is_object_like(node, ctx.defs):
        return _inline_definition(ctx, node, pointer, hint)
    if kinds == "object" or "additionalProperties" in node:
        values = node.get("additionalProperties", True)
        if isinstance(values, dict) and values:
            ap_pointer = pointer_join(pointer, "additionalProperties")
            return Map(lower_type(ctx, values, ap_pointer, hint + "Value"))
        return Map(AnyValue())
    if "allOf" in node:
        ctx.problem(pointer, "`allOf` of anything but one `$ref` or objects is not supported")
        return AnyValue()
    ctx.problem(pointer, f"no type can be read from keywords {sorted(node.keys() - ANNOTATIONS)}")
    return AnyValue()


def constraints_of(node: dict[str, Any]) -> Constraints:
    return Constraints(
        minimum=node.get("minimum"),
        maximum=node.get("maximum"),
        min_length=node.get("minLength"),
        pattern=node.get("pattern"),
        min_items=node.get("minItems"),
        max_length=node.get("maxLength"),
    )


def _ref(ctx: Lowering, name: str | None, node: dict[str, Any], pointer: str) -> TypeExpr:
    if name is None or name not in ctx.defs:
        ctx.problem(pointer, f"unresolvable reference {node.get('$ref', node.get('allOf'))!r}")
        return AnyValue()
    return Ref(name)


def _type_list(
    ctx: Lowering, node: dict[str, Any], kinds: list[Any], pointer: str, hint: str
) -> TypeExpr:
    rest = [k for k in kinds if k != "null"]
    nullable = len(rest) < len(kinds)
    if len(rest) == 1:
        inner = lower_type(ctx, {**node, "type": rest[0]}, pointer, hint)
    else:
        inner = UnionOf(tuple(lower_type(ctx, {**node, "type": k}, pointer, hint) for k in rest))
    return Nullable(inner) if nullable else inner


def _union(ctx: Lowering, node: dict[str, Any], pointer: str, hint: str) -> TypeExpr:
    keyword = union_keyword(node)
    assert keyword is not None
    options = branches(node)
    nullable = has_null_branch(node)
    if not options:
        return NullType()
    if len(options) == 1:
        index, only = options[0]
        inner = lower_type(ctx, only, pointer_join(pointer, keyword, index), hint)
    elif any(is_object_like(b, ctx.defs) and single_ref(b) is None for _, b in options) or all(
        "const" in b for _, b in options
    ):
        inner = _inline_definition(
            ctx, {k: v for k, v in node.items() if not is_null(v)}, pointer, hint
        )
    else:
        inner = UnionOf(
            tuple(
                lower_type(ctx, b, pointer_join(pointer, keyword, i), hint + str(i))
                for i, b in options
            )
        )
    return Nullable(inner) if nullable else inner


def _inline_definition(ctx: Lowering, node: dict[str, Any], pointer: str, hint: str) -> TypeExpr:
    """An inline object, object union or enumeration: a definition named `hint`."""
    from acp_codegen.lowering.definitions import lower_definition

    keyword = union_keyword(node)
    if keyword is not None:
        node = {**node, keyword: [b for b in node[keyword] if not is_null(b)]}
    if not ctx.claim(hint, pointer):
        return AnyValue()
    lower_definition(ctx, hint, node, pointer)
    return Ref(hint)
