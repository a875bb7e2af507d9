"""Post-pass: make every discriminated union open to variants this schema does not know.

datamodel-code-generator writes a tagged union as
`X = TypeAliasType("X", Annotated[A | B, Field(..., discriminator="tag")])`, which rejects an
unknown tag, so one `session/update` from a newer agent would fail the whole notification. Each
such alias is re-rendered from `templates/python/open_union.py.jinja`: the same variants selected by
`open_discriminator`, plus an `UnknownX` model that keeps any other variant with all its fields.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import jinja2


@dataclass(frozen=True, slots=True)
class Variant:
    class_name: str
    tag: str


@dataclass(frozen=True, slots=True)
class OpenUnion:
    name: str
    attribute: str
    wire_name: str
    description: str | None
    variants: tuple[Variant, ...]
    start: int  # 1-based first line of the alias statement
    end: int  # 1-based last line


def find_tagged_unions(source: str) -> list[OpenUnion]:
    tree = ast.parse(source)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    unions: list[OpenUnion] = []
    for node in tree.body:
        parsed = _tagged_alias(node)
        if parsed is None:
            continue
        name, members, attribute, description = parsed
        variants = []
        wire_name = attribute
        for member in members:
            tag, alias = _tag_of(classes, member, attribute)
            variants.append(Variant(member, tag))
            wire_name = alias or wire_name
        assert node.end_lineno is not None
        unions.append(
            OpenUnion(
                name,
                attribute,
                wire_name,
                description,
                tuple(variants),
                node.lineno,
                node.end_lineno,
            )
        )
    return unions


def open_unions(source: str, template: jinja2.Template) -> str:
    """`source` with every tagged union alias replaced by its open form."""
    lines = source.splitlines(keepends=True)
    for union in reversed(find_tagged_unions(source)):
        rendered = template.render(union=union)
        lines[union.start - 1 : union.end] = [rendered]
    return "".join(lines)


def _tagged_alias(node: ast.stmt) -> tuple[str, list[str], str, str | None] | None:
    """(alias name, member class names, discriminator attribute, description) or None."""
    if not (
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "TypeAliasType"
        and len(node.value.args) == 2
    ):
        return None
    target = node.targets[0]
    annotated = node.value.args[1]
    if not (
        isinstance(target, ast.Name)
        and isinstance(annotated, ast.Subscript)
        and isinstance(annotated.slice, ast.Tuple)
        and len(annotated.slice.elts) == 2
    ):
        return None
    union, field = annotated.slice.elts
    if not (
        isinstance(field, ast.Call)
        and isinstance(field.func, ast.Name)
        and field.func.id == "Field"
    ):
        return None
    keywords = {k.arg: k.value for k in field.keywords}
    discriminator = keywords.get("discriminator")
    if not isinstance(discriminator, ast.Constant) or not isinstance(discriminator.value, str):
        return None
    description = keywords.get("description")
    text = description.value if isinstance(description, ast.Constant) else None
    if not isinstance(text, str | None):
        return None
    return target.id, _union_members(union), discriminator.value, text


def _union_members(node: ast.expr) -> list[str]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    if isinstance(node, ast.Name):
        return [node.id]
    raise ValueError(f"unexpected union member {ast.unparse(node)}")


def _tag_of(classes: dict[str, ast.ClassDef], name: str, attribute: str) -> tuple[str, str | None]:
    """The `Literal` tag a variant class (or one of its bases) gives `attribute`, and its alias."""
    node = classes[name]
    for statement in node.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == attribute
        ):
            return _literal_and_alias(statement.annotation)
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            return _tag_of(classes, base.id, attribute)
    raise ValueError(f"variant {name} has no tag field {attribute!r}")


def _literal_and_alias(annotation: ast.expr) -> tuple[str, str | None]:
    alias = None
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Annotated":
        assert isinstance(annotation.slice, ast.Tuple)
        annotation, *extras = annotation.slice.elts
        for extra in extras:
            if isinstance(extra, ast.Call):
                for keyword in extra.keywords:
                    if keyword.arg == "alias" and isinstance(keyword.value, ast.Constant):
                        alias = str(keyword.value.value)
    if (
        isinstance(annotation, ast.Subscript)
        and ast.unparse(annotation.value) == "Literal"
        and isinstance(annotation.slice, ast.Constant)
    ):
        return str(annotation.slice.value), alias
    raise ValueError(f"tag annotation is not a single Literal: {ast.unparse(annotation)}")
